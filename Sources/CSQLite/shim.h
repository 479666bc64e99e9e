#ifndef OBSERVABLE_STORE_CSQLITE_SHIM_H
#define OBSERVABLE_STORE_CSQLITE_SHIM_H

// Debian's <sqlite3.h> declares the preupdate API only when this macro is set.
// Whether the linked library really has it is checked at run time
// (sqlite3_compileoption_used("ENABLE_PREUPDATE_HOOK")) when a store opens.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

#endif
