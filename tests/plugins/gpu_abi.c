/* gpu_abi.c — the gpu plugin's own declarations of the CUDA driver API,
 * NVML and cuBLASLt (it builds without their headers) against the real
 * headers: compiled, never run, by gpu_abi.sh wherever cuda.h is
 * installed (nvml.h and cublasLt.h each where found).  A mistake is a
 * compile error naming the entry point or the field.
 *
 * -DABI_SIGNATURES: with the real types (GPU_CUDA_REAL_HEADERS,
 * GPU_NVML_REAL_HEADERS), every function pointer of the plugin's tables
 * has the type of the entry point it is looked up as (cuMemAlloc_v2 for
 * mem_alloc: the versioned names the headers #define the plain ones to).
 * -DABI_LAYOUTS: the plugin's own types, renamed beside the real ones,
 * have their sizes and field offsets, and its constants their values. */
#include <stddef.h>

#include <cuda.h>
#if __has_include(<cublasLt.h>)
#include <cublasLt.h>
#define HAVE_CUBLASLT 1
#endif
#if __has_include(<nvml.h>)
#include <nvml.h>
#define HAVE_NVML 1
#endif

#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " differs")
#define FIELD(s, f) __typeof__(((s *)0)->f)
#define FN(s, f, real) SAME_TYPE(FIELD(s, f), __typeof__(&real))
#define SAME(a, b) _Static_assert((a) == (b), #a " != " #b)
#define SAME_SIZE(ours, real) SAME(sizeof(ours), sizeof(real))
#define SAME_AT(ours, real, f) SAME(offsetof(ours, f), offsetof(real, f))

#ifdef ABI_SIGNATURES
#define GPU_CUDA_REAL_HEADERS 1
#ifdef HAVE_NVML
#define GPU_NVML_REAL_HEADERS 1
#endif
#ifdef HAVE_CUBLASLT
#define GPU_CUBLASLT_REAL_HEADERS 1
#endif
#include "gpu/gpu_cuda.h"

#define C(f, real) FN(struct gpu_cuda, f, real)
C(init, cuInit);
C(driver_get_version, cuDriverGetVersion);
C(device_get_count, cuDeviceGetCount);
C(device_get, cuDeviceGet);
C(device_get_attribute, cuDeviceGetAttribute);
C(primary_ctx_retain, cuDevicePrimaryCtxRetain);
C(primary_ctx_release, cuDevicePrimaryCtxRelease_v2);
C(ctx_set_current, cuCtxSetCurrent);
C(mem_get_info, cuMemGetInfo_v2);
C(mem_alloc, cuMemAlloc_v2);
C(mem_free, cuMemFree_v2);
C(mem_host_alloc, cuMemHostAlloc);
C(mem_free_host, cuMemFreeHost);
C(memcpy_htod_async, cuMemcpyHtoDAsync_v2);
C(memcpy_dtoh_async, cuMemcpyDtoHAsync_v2);
C(memcpy_dtoh, cuMemcpyDtoH_v2);
C(module_load_data_ex, cuModuleLoadDataEx);
C(module_get_function, cuModuleGetFunction);
C(module_unload, cuModuleUnload);
C(launch_kernel, cuLaunchKernel);
C(stream_create, cuStreamCreate);
C(stream_destroy, cuStreamDestroy_v2);
C(stream_synchronize, cuStreamSynchronize);
C(event_create, cuEventCreate);
C(event_record, cuEventRecord);
C(event_synchronize, cuEventSynchronize);
C(event_query, cuEventQuery);
C(event_elapsed_time, cuEventElapsedTime_v2);
C(event_destroy, cuEventDestroy_v2);
C(get_error_name, cuGetErrorName);

#ifdef HAVE_NVML
#include "gpu/gpu_nvml.h"
#define N(f, real) FN(struct gpu_nvml_api, f, real)
N(init, nvmlInit_v2);
N(shutdown, nvmlShutdown);
N(error_string, nvmlErrorString);
N(system_get_driver_version, nvmlSystemGetDriverVersion);
N(system_get_nvml_version, nvmlSystemGetNVMLVersion);
N(device_get_count, nvmlDeviceGetCount_v2);
N(device_get_handle_by_index, nvmlDeviceGetHandleByIndex_v2);
N(device_get_uuid, nvmlDeviceGetUUID);
N(device_get_name, nvmlDeviceGetName);
N(device_get_memory_info, nvmlDeviceGetMemoryInfo);
N(device_get_pci_info, nvmlDeviceGetPciInfo_v3);
N(device_get_compute_running_processes, nvmlDeviceGetComputeRunningProcesses_v3);
N(device_get_graphics_running_processes, nvmlDeviceGetGraphicsRunningProcesses_v3);
N(device_get_utilization_rates, nvmlDeviceGetUtilizationRates);
N(device_get_current_clocks_event_reasons, nvmlDeviceGetCurrentClocksEventReasons);
N(device_get_field_values, nvmlDeviceGetFieldValues);
N(device_get_violation_status, nvmlDeviceGetViolationStatus);
N(device_get_clock_info, nvmlDeviceGetClockInfo);
N(device_get_max_clock_info, nvmlDeviceGetMaxClockInfo);
N(device_get_temperature, nvmlDeviceGetTemperature);
N(device_get_enforced_power_limit, nvmlDeviceGetEnforcedPowerLimit);
N(device_get_power_management_default_limit, nvmlDeviceGetPowerManagementDefaultLimit);
N(device_get_total_ecc_errors, nvmlDeviceGetTotalEccErrors);
N(device_get_remapped_rows, nvmlDeviceGetRemappedRows);
N(device_get_pcie_replay_counter, nvmlDeviceGetPcieReplayCounter);
N(device_get_curr_pcie_link_generation, nvmlDeviceGetCurrPcieLinkGeneration);
N(device_get_curr_pcie_link_width, nvmlDeviceGetCurrPcieLinkWidth);
N(device_get_max_pcie_link_generation, nvmlDeviceGetMaxPcieLinkGeneration);
N(device_get_max_pcie_link_width, nvmlDeviceGetMaxPcieLinkWidth);
N(event_set_create, nvmlEventSetCreate);
N(device_register_events, nvmlDeviceRegisterEvents);
N(event_set_wait, nvmlEventSetWait_v2);
N(event_set_free, nvmlEventSetFree);
/* the older names the plugin falls back to have the same types */
SAME_TYPE(__typeof__(&nvmlDeviceGetCurrentClocksEventReasons),
          __typeof__(&nvmlDeviceGetCurrentClocksThrottleReasons));
#endif

#ifdef HAVE_CUBLASLT
#include "gpu/gpu_gemm.c"
#define L(f, real) FN(struct lt, f, real)
L(create, cublasLtCreate);
L(destroy, cublasLtDestroy);
L(desc_create, cublasLtMatmulDescCreate);
L(desc_destroy, cublasLtMatmulDescDestroy);
L(layout_create, cublasLtMatrixLayoutCreate);
L(layout_destroy, cublasLtMatrixLayoutDestroy);
L(pref_create, cublasLtMatmulPreferenceCreate);
L(pref_set, cublasLtMatmulPreferenceSetAttribute);
L(pref_destroy, cublasLtMatmulPreferenceDestroy);
L(heuristic, cublasLtMatmulAlgoGetHeuristic);
L(matmul, cublasLtMatmul);
#endif
#endif /* ABI_SIGNATURES */

#ifdef ABI_LAYOUTS
/* the plugin's own declarations, under other names */
#define CUresult ours_CUresult
#define CUdevice ours_CUdevice
#define CUdeviceptr ours_CUdeviceptr
#define CUcontext ours_CUcontext
#define CUmodule ours_CUmodule
#define CUfunction ours_CUfunction
#define CUstream ours_CUstream
#define CUevent ours_CUevent
#define CUdevice_attribute ours_CUdevice_attribute
#define CUjit_option ours_CUjit_option
#include "gpu/gpu_cuda.h"
SAME_SIZE(ours_CUresult, CUresult);
SAME_SIZE(ours_CUdevice, CUdevice);
SAME_SIZE(ours_CUdeviceptr, CUdeviceptr);
SAME_SIZE(ours_CUdevice_attribute, CUdevice_attribute);
SAME_SIZE(ours_CUjit_option, CUjit_option);
SAME(GPU_CUDA_SUCCESS, CUDA_SUCCESS);
SAME(GPU_CUDA_ERROR_NOT_READY, CUDA_ERROR_NOT_READY);
SAME(GPU_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME(GPU_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
SAME(GPU_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
SAME(GPU_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
SAME(GPU_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
SAME(GPU_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
     CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME(GPU_CU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
SAME(GPU_CU_EVENT_DEFAULT, CU_EVENT_DEFAULT);
SAME(GPU_CU_EVENT_BLOCKING_SYNC, CU_EVENT_BLOCKING_SYNC);
SAME(GPU_CU_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_PORTABLE);
SAME(GPU_CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER);
SAME(GPU_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME(2, CUDA_ERROR_OUT_OF_MEMORY); /* gpu_session.c: -ENOMEM */

#ifdef HAVE_NVML
#define nvmlReturn_t ours_nvmlReturn_t
#define nvmlDevice_t ours_nvmlDevice_t
#define nvmlEventSet_t ours_nvmlEventSet_t
#define nvmlProcessInfo_v2_st ours_nvmlProcessInfo_v2_st
#define nvmlProcessInfo_t ours_nvmlProcessInfo_t
#define nvmlUtilization_st ours_nvmlUtilization_st
#define nvmlUtilization_t ours_nvmlUtilization_t
#define nvmlMemory_st ours_nvmlMemory_st
#define nvmlMemory_t ours_nvmlMemory_t
#define nvmlPciInfo_st ours_nvmlPciInfo_st
#define nvmlPciInfo_t ours_nvmlPciInfo_t
#define nvmlViolationTime_st ours_nvmlViolationTime_st
#define nvmlViolationTime_t ours_nvmlViolationTime_t
#define nvmlValue_st ours_nvmlValue_st
#define nvmlValue_t ours_nvmlValue_t
#define nvmlFieldValue_st ours_nvmlFieldValue_st
#define nvmlFieldValue_t ours_nvmlFieldValue_t
#define nvmlEventData_st ours_nvmlEventData_st
#define nvmlEventData_t ours_nvmlEventData_t
#define nvmlClockType_t ours_nvmlClockType_t
#define nvmlTemperatureSensors_t ours_nvmlTemperatureSensors_t
#define nvmlMemoryErrorType_t ours_nvmlMemoryErrorType_t
#define nvmlEccCounterType_t ours_nvmlEccCounterType_t
#define nvmlPerfPolicyType_t ours_nvmlPerfPolicyType_t
#include "gpu/gpu_nvml.h"
#undef nvmlReturn_t
#undef nvmlDevice_t
#undef nvmlEventSet_t
#undef nvmlProcessInfo_t
#undef nvmlUtilization_t
#undef nvmlMemory_t
#undef nvmlPciInfo_t
#undef nvmlViolationTime_t
#undef nvmlValue_t
#undef nvmlFieldValue_t
#undef nvmlEventData_t
#undef nvmlClockType_t
#undef nvmlTemperatureSensors_t
#undef nvmlMemoryErrorType_t
#undef nvmlEccCounterType_t
#undef nvmlPerfPolicyType_t
SAME_SIZE(ours_nvmlReturn_t, nvmlReturn_t);
SAME_SIZE(ours_nvmlDevice_t, nvmlDevice_t);
SAME_SIZE(ours_nvmlEventSet_t, nvmlEventSet_t);
SAME_SIZE(ours_nvmlProcessInfo_t, nvmlProcessInfo_t);
SAME_AT(ours_nvmlProcessInfo_t, nvmlProcessInfo_t, pid);
SAME_AT(ours_nvmlProcessInfo_t, nvmlProcessInfo_t, usedGpuMemory);
SAME_AT(ours_nvmlProcessInfo_t, nvmlProcessInfo_t, computeInstanceId);
SAME_SIZE(ours_nvmlUtilization_t, nvmlUtilization_t);
SAME_AT(ours_nvmlUtilization_t, nvmlUtilization_t, gpu);
SAME_SIZE(ours_nvmlMemory_t, nvmlMemory_t);
SAME_AT(ours_nvmlMemory_t, nvmlMemory_t, total);
SAME_AT(ours_nvmlMemory_t, nvmlMemory_t, free);
SAME_SIZE(ours_nvmlPciInfo_t, nvmlPciInfo_t);
SAME_AT(ours_nvmlPciInfo_t, nvmlPciInfo_t, domain);
SAME_AT(ours_nvmlPciInfo_t, nvmlPciInfo_t, bus);
SAME_AT(ours_nvmlPciInfo_t, nvmlPciInfo_t, device);
SAME_AT(ours_nvmlPciInfo_t, nvmlPciInfo_t, busId);
SAME_SIZE(ours_nvmlViolationTime_t, nvmlViolationTime_t);
SAME_AT(ours_nvmlViolationTime_t, nvmlViolationTime_t, violationTime);
SAME_SIZE(ours_nvmlValue_t, nvmlValue_t);
SAME_SIZE(ours_nvmlFieldValue_t, nvmlFieldValue_t);
SAME_AT(ours_nvmlFieldValue_t, nvmlFieldValue_t, fieldId);
SAME_AT(ours_nvmlFieldValue_t, nvmlFieldValue_t, nvmlReturn);
SAME_AT(ours_nvmlFieldValue_t, nvmlFieldValue_t, value);
SAME_SIZE(ours_nvmlEventData_t, nvmlEventData_t);
SAME_AT(ours_nvmlEventData_t, nvmlEventData_t, eventType);
SAME_AT(ours_nvmlEventData_t, nvmlEventData_t, eventData);
SAME(GPU_NVML_SUCCESS, NVML_SUCCESS);
SAME(GPU_NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED);
SAME(GPU_NVML_ERROR_INSUFFICIENT_SIZE, NVML_ERROR_INSUFFICIENT_SIZE);
SAME(GPU_NVML_ERROR_TIMEOUT, NVML_ERROR_TIMEOUT);
SAME(GPU_NVML_CLOCK_SM, NVML_CLOCK_SM);
SAME(GPU_NVML_TEMPERATURE_GPU, NVML_TEMPERATURE_GPU);
SAME(GPU_NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_MEMORY_ERROR_TYPE_CORRECTED);
SAME(GPU_NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
SAME(GPU_NVML_VOLATILE_ECC, NVML_VOLATILE_ECC);
SAME(GPU_NVML_AGGREGATE_ECC, NVML_AGGREGATE_ECC);
SAME(GPU_NVML_EVENT_XID_CRITICAL_ERROR, nvmlEventTypeXidCriticalError);
SAME(GPU_NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE);
SAME(GPU_NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_NAME_V2_BUFFER_SIZE);
SAME(GPU_NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
SAME(GPU_NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE, NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE);
/* gpu_nvml.c's tables of reasons: their bits and counters */
SAME(0x8, nvmlClocksThrottleReasonHwSlowdown);
SAME(0x40, nvmlClocksThrottleReasonHwThermalSlowdown);
SAME(0x80, nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
SAME(0x20, nvmlClocksEventReasonSwThermalSlowdown);
SAME(0x4, nvmlClocksEventReasonSwPowerCap);
SAME(0x10, nvmlClocksEventReasonSyncBoost);
SAME(74, NVML_FI_DEV_PERF_POLICY_POWER); /* ..._CLOCKS_EVENT_REASON_SW_POWER_CAP */
SAME(76, NVML_FI_DEV_PERF_POLICY_SYNC_BOOST); /* ..._CLOCKS_EVENT_REASON_SYNC_BOOST */
/* the three numbered by version (gpu_nvml.h): this nvml.h's are either
 * numbering, in a row, and the other numbering's ids power smoothing's */
#ifdef NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN
#if NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN == GPU_NVML_FI_EVENTS_12_9
SAME(GPU_NVML_FI_EVENTS_13_1, NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE);
#else
SAME(GPU_NVML_FI_EVENTS_13_1, NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN);
SAME(GPU_NVML_FI_EVENTS_12_9, NVML_FI_PWR_SMOOTHING_ENABLED);
#endif
SAME(NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN + 1,
     NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN);
SAME(NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN + 2,
     NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN);
#endif
SAME(0, NVML_PERF_POLICY_POWER);
SAME(1, NVML_PERF_POLICY_THERMAL);
SAME(2, NVML_PERF_POLICY_SYNC_BOOST);
#endif

#ifdef HAVE_CUBLASLT
#define cublasStatus_t ours_cublasStatus_t
#define cublasLtHandle_t ours_cublasLtHandle_t
#define cublasLtMatmulDescOpaque_t ours_cublasLtMatmulDescOpaque_t
#define cublasLtMatmulDesc_t ours_cublasLtMatmulDesc_t
#define cublasLtMatrixLayoutOpaque_t ours_cublasLtMatrixLayoutOpaque_t
#define cublasLtMatrixLayout_t ours_cublasLtMatrixLayout_t
#define cublasLtMatmulPreferenceOpaque_t ours_cublasLtMatmulPreferenceOpaque_t
#define cublasLtMatmulPreference_t ours_cublasLtMatmulPreference_t
#define cublasLtMatmulAlgo_t ours_cublasLtMatmulAlgo_t
#define cublasLtMatmulHeuristicResult_t ours_cublasLtMatmulHeuristicResult_t
#define cublasComputeType_t ours_cublasComputeType_t
#define cudaDataType_t ours_cudaDataType_t
#define cublasLtMatmulDescAttributes_t ours_cublasLtMatmulDescAttributes_t
#define cublasLtMatmulPreferenceAttributes_t ours_cublasLtMatmulPreferenceAttributes_t
#define cudaStream_t ours_cudaStream_t
#include "gpu/gpu_gemm.c"
#undef cublasStatus_t
#undef cublasLtMatmulAlgo_t
#undef cublasLtMatmulHeuristicResult_t
#undef cudaDataType_t
#undef cublasComputeType_t
SAME_SIZE(ours_cublasStatus_t, cublasStatus_t);
SAME_SIZE(ours_cublasLtMatmulAlgo_t, cublasLtMatmulAlgo_t);
SAME_SIZE(ours_cublasLtMatmulHeuristicResult_t, cublasLtMatmulHeuristicResult_t);
SAME_AT(ours_cublasLtMatmulHeuristicResult_t, cublasLtMatmulHeuristicResult_t, workspaceSize);
SAME_AT(ours_cublasLtMatmulHeuristicResult_t, cublasLtMatmulHeuristicResult_t, state);
SAME_SIZE(ours_cudaDataType_t, cudaDataType_t);
SAME_SIZE(ours_cublasComputeType_t, cublasComputeType_t);
SAME(GPU_CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS);
SAME(GPU_CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F);
SAME(GPU_CUDA_R_16BF, CUDA_R_16BF);
SAME(GPU_CUDA_R_32F, CUDA_R_32F);
SAME(GPU_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
#endif
#endif /* ABI_LAYOUTS */
