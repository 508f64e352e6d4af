/*
 * patchwarden: a patch's life (see db/lineage.h): the versions of a
 * series linked into lineages, and what became of each patch.
 */
#include "db/db-private.h"
#include "db/lineage.h"

/*
 * The order of the versions of one lineage: by version, then by the
 * date and id of the series (a copy sent again is later than its
 * original).  A and B are aliases of lineage joined to series.
 */
#define EARLIER(a, b) \
	"(" a ".version < " b ".version OR (" a ".version = " b ".version" \
	" AND (" a ".first_date < " b ".first_date OR (" a ".first_date = " \
	b ".first_date AND " a ".id < " b ".id))))"

enum pw_status pw_db_lineage_earlier(struct pw_db *db, int64_t series_id,
				     GArray *out)
{
	sqlite3_stmt *st = pw_db_stmt(db,
		"SELECT e.id FROM lineage l JOIN series s ON s.id = l.series"
		" JOIN lineage le ON le.root = l.root AND le.series <> l.series"
		" JOIN series e ON e.id = le.series"
		" WHERE l.series = ?1 AND " EARLIER("e", "s")
		" ORDER BY e.version DESC, e.first_date DESC, e.id DESC");

	sqlite3_bind_int64(st, 1, series_id);
	return pw_db_read_ids(db, st, out);
}
