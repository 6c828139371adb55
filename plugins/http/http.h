/* http.h — the http plugin's two engines, as the plugin file drives them
 * (the settings, schedule and tallies they share are in http_load.h).
 *
 * The plugin (http.c) turns parameters into a struct http_cfg and drives one
 * of two engines: http_raw.c, a dedicated epoll HTTP/1.1 client for plain
 * http (libcurl could not keep up with wrk: see http.c), and http_curl.c,
 * libcurl's multi interface for https. */
#ifndef BENCHWATCH_HTTP_H
#define BENCHWATCH_HTTP_H

#include "http_load.h"

int http_raw_run(struct http_load *l, struct http_cfg *cfg);
int http_curl_run(struct http_load *l);

#endif
