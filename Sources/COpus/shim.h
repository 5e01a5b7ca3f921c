#pragma once
#include <opus.h>
#include <opus_multistream.h>
