#include "CSQLite.h"

int client_answer(void) { return 42; }
