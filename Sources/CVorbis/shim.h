#pragma once
#include <vorbis/codec.h>
