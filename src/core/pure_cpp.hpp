// The wall between the pure C++ core and PostgreSQL.
//
// Every header under src/core/ includes this one first. The core must stay
// free of PostgreSQL headers so that it can be unit-tested without a server
// and so that no PostgreSQL error (a longjmp) can ever unwind through a core
// frame that owns resources. If a PostgreSQL header was included before a core
// header in the same translation unit, compilation stops here.
#pragma once

#if defined(POSTGRES_H) || defined(C_H) || defined(PG_VERSION_NUM)
#error \
    "src/core is pure C++: include core headers before any PostgreSQL header, and never include PostgreSQL headers from src/core"
#endif
