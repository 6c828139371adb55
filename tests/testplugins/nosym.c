/* nosym.c — a shared object without the benchwatch_plugin symbol: the
 * loader must refuse it as "not a benchwatch plugin". Test-only. */
int nosym_function(void);
int nosym_function(void)
{
        return 1;
}
