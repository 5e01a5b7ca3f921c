#define _GNU_SOURCE
#include "CCurlShim.h"
#include <pthread.h>

void cshim_http_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

CURLcode cshim_curl_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode cshim_curl_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode cshim_curl_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode cshim_curl_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode cshim_curl_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode cshim_curl_setopt_data_callback(CURL *easy, CURLoption option, cshim_curl_data_cb callback) {
    return curl_easy_setopt(easy, option, callback);
}
CURLcode cshim_curl_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode cshim_curl_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode cshim_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}
size_t cshim_curl_writefunc_pause(void) {
    return CURL_WRITEFUNC_PAUSE;
}
