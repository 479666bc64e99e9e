// Declarations only (include/fuzzer_driver.h): the definition is libFuzzer's, linked by Tools/fuzz.
#include "fuzzer_driver.h"
