// Debian's <sqlite3.h> declares the preupdate API (used by update_many_full_capture) only with this macro.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>
