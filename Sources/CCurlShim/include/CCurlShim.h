#pragma once
// libcurl's variadic setopt/getinfo and the CURLMsg union, typed for Swift.
#include <curl/curl.h>

typedef size_t (*cshim_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);

CURLcode cshim_curl_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode cshim_curl_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode cshim_curl_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode cshim_curl_setopt_offset(CURL *easy, CURLoption option, curl_off_t value);
CURLcode cshim_curl_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value);
/// option is CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION.
CURLcode cshim_curl_setopt_data_callback(CURL *easy, CURLoption option, cshim_curl_data_cb callback);
CURLcode cshim_curl_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode cshim_curl_getinfo_pointer(CURL *easy, CURLINFO info, void **value);
/// The `result` member of a CURLMSG_DONE message (a union member Swift imports awkwardly).
CURLcode cshim_curl_msg_result(const CURLMsg *message);
/// CURL_WRITEFUNC_PAUSE (a macro Swift cannot import as a size_t).
size_t cshim_curl_writefunc_pause(void);
/// Names the calling thread (at most 15 bytes are used); for the HTTP worker thread.
void cshim_http_set_thread_name(const char *name);
