#pragma once
#include <neaacdec.h>
