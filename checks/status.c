#include "checks/status.h"

const char *pw_status_str(enum pw_status st)
{
	switch (st) {
	case PW_OK: return "ok";
	case PW_ERR_INPUT: return "bad input";
	case PW_ERR_USAGE: return "usage error";
	case PW_ERR_IO: return "i/o error";
	case PW_ERR_DB: return "database error";
	case PW_ERR_TRANSIENT: return "temporary failure";
	case PW_ERR_PERMANENT: return "permanent failure";
	case PW_ERR_NOMEM: return "out of memory";
	}
	return "unknown error";
}
