#if PostgreSQL
import Testing
#endif
