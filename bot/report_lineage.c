/*
 * patchwarden: a series' lineage as query and the dashboard show it
 * (see bot/report.h).
 */
#include "bot/report.h"
#include "db/lineage.h"

const char *pw_report_lineage_layout(enum pw_report_lineage_part part)
{
	switch (part) {
	case PW_LINEAGE_HTML_ROW:
		return "<tr><td><a href=\"/series/%(id)\">%(name)</a></td>"
			"<td>v%(version)</td><td>%(state)</td><td>%(linked_by)</td>"
			"<td><a href=\"/senders?from=%(sender:url)\">%(sender)</a></td>"
			"<td>%(first_seen)</td>"
			"<td class=\"n%(if:findings) bad%(end)\">%(findings)</td>"
			"<td class=\"n\">%(fixed)</td><td class=\"n\">%(kept)</td>"
			"<td class=\"n\">%(added)</td></tr>\n";
	case PW_LINEAGE_HTML_HEAD:
		return "<tr><th>series</th><th>version</th><th>state</th>"
			"<th>linked by</th><th>sender</th><th>first seen</th>"
			"<th>findings</th><th>fixed</th><th>kept</th><th>added</th></tr>\n";
	case PW_LINEAGE_TEXT:
		break;
	}
	return "%(id) v%(version) %(state)%(if:applied) applied=%(applied)%(end)"
		" %(linked_by)%(if:supersedes) after %(supersedes)%(end)"
		" %(sender) %(first_seen) findings=%(findings) fixed=%(fixed)"
		" kept=%(kept) added=%(added) \"%(name)\"\n";
}

/* "applied", "superseded", ... when every patch is so, else "mixed". */
static const char *state_of(const struct pw_lineage_version *v)
{
	int st;

	for (st = PW_STATE_NEW; st <= PW_STATE_APPLIED; st++)
		if (v->states[st] == v->patches)
			return pw_patch_state_name((enum pw_patch_state)st);
	return "mixed";
}

enum pw_status pw_report_lineage(struct pw_db *db, int64_t series_id,
				 enum pw_severity min, struct pw_printer *p)
{
	GPtrArray *versions = NULL;
	enum pw_status s;
	guint i;

	s = pw_db_lineage_versions(db, series_id, min, &versions);
	if (s)
		goto out;
	pw_print_begin_list(p);
	for (i = 0; i < versions->len; i++) {
		const struct pw_lineage_version *v = versions->pdata[i];

		pw_print_begin_record(p);
		pw_print_int_at(p, "id", v->series_id);
		pw_print_int_at(p, "version", v->version);
		pw_print_str_at(p, "name", v->name);
		pw_print_str_at(p, "sender", v->from_addr);
		pw_print_time_at(p, "first_seen", v->date);
		pw_print_str_at(p, "linked_by", v->how);
		pw_print_key(p, "supersedes");
		if (v->supersedes)
			pw_print_int(p, v->supersedes);
		else
			pw_print_null(p);
		pw_print_int_at(p, "patches", v->patches);
		pw_print_str_at(p, "state", state_of(v));
		pw_print_int_at(p, "applied", v->states[PW_STATE_APPLIED]);
		pw_print_int_at(p, "findings", v->findings);
		pw_print_int_at(p, "fixed", v->fixed);
		pw_print_int_at(p, "kept", v->kept);
		pw_print_int_at(p, "added", v->added);
		pw_print_end(p);
	}
	pw_print_end(p);
out:
	if (versions)
		g_ptr_array_unref(versions);
	return s;
}
