#pragma once
#include <FLAC/stream_decoder.h>
