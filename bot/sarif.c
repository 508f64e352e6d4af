/*
 * patchwarden: findings as SARIF 2.1.0 (see bot/sarif.h), a JSON
 * vocabulary of its own written through the JSON printer.
 */
#include "bot/printer.h"
#include "bot/sarif.h"
#include "checks/rules.h"

static const char *sarif_level(enum pw_severity s)
{
	switch (s) {
	case PW_SEV_ERROR: return "error";
	case PW_SEV_WARNING: return "warning";
	case PW_SEV_INFO: return "note";
	}
	return "note";
}

void pw_sarif_print(FILE *out, const GPtrArray *lists)
{
	struct pw_printer *p = pw_printer_new(PW_FORMAT_JSON, out, NULL, 0);
	const struct pw_rule *rules;
	size_t nrules, k;
	guint i, j;

	rules = pw_rules(&nrules);
	pw_print_begin_map(p);
	pw_print_str_at(p, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	pw_print_str_at(p, "version", "2.1.0");
	pw_print_key(p, "runs");
	pw_print_begin_list(p);
	pw_print_begin_map(p);
	pw_print_key(p, "tool");
	pw_print_begin_map(p);
	pw_print_key(p, "driver");
	pw_print_begin_map(p);
	pw_print_str_at(p, "name", "patchwarden");
	pw_print_str_at(p, "version", PW_VERSION);
	pw_print_key(p, "rules");
	pw_print_begin_list(p);
	for (k = 0; k < nrules; k++) {
		pw_print_begin_map(p);
		pw_print_str_at(p, "id", rules[k].id);
		pw_print_key(p, "shortDescription");
		pw_print_begin_map(p);
		pw_print_str_at(p, "text", rules[k].summary);
		pw_print_end(p);
		pw_print_key(p, "defaultConfiguration");
		pw_print_begin_map(p);
		pw_print_str_at(p, "level", sarif_level(rules[k].severity));
		pw_print_key(p, "enabled");
		pw_print_bool(p, rules[k].default_on);
		pw_print_end(p);
		pw_print_end(p);
	}
	pw_print_end(p);
	pw_print_end(p);
	pw_print_end(p);
	pw_print_key(p, "results");
	pw_print_begin_list(p);
	for (i = 0; i < lists->len; i++) {
		const GPtrArray *fs = lists->pdata[i];

		for (j = 0; j < fs->len; j++) {
			struct pw_finding *f = fs->pdata[j];
			const struct pw_rule *rule = pw_rule_find(f->rule);

			pw_print_begin_map(p);
			pw_print_str_at(p, "ruleId", f->rule);
			if (rule)
				pw_print_int_at(p, "ruleIndex", rule - rules);
			pw_print_str_at(p, "level", sarif_level(f->severity));
			pw_print_key(p, "message");
			pw_print_begin_map(p);
			pw_print_str_at(p, "text", f->message);
			pw_print_end(p);
			pw_print_key(p, "locations");
			pw_print_begin_list(p);
			pw_print_begin_map(p);
			pw_print_key(p, "physicalLocation");
			pw_print_begin_map(p);
			pw_print_key(p, "artifactLocation");
			pw_print_begin_map(p);
			pw_print_str_at(p, "uri", f->file);
			pw_print_end(p);
			if (f->line > 0) {
				pw_print_key(p, "region");
				pw_print_begin_map(p);
				pw_print_int_at(p, "startLine", f->line);
				if (f->column > 0)
					pw_print_int_at(p, "startColumn", f->column);
				pw_print_end(p);
			}
			pw_print_end(p);
			pw_print_end(p);
			pw_print_end(p);
			if (f->replacement && f->line > 0) {
				pw_print_key(p, "fixes");
				pw_print_begin_list(p);
				pw_print_begin_map(p);
				pw_print_key(p, "description");
				pw_print_begin_map(p);
				pw_print_str_at(p, "text", f->fix);
				pw_print_end(p);
				pw_print_key(p, "artifactChanges");
				pw_print_begin_list(p);
				pw_print_begin_map(p);
				pw_print_key(p, "artifactLocation");
				pw_print_begin_map(p);
				pw_print_str_at(p, "uri", f->file);
				pw_print_end(p);
				pw_print_key(p, "replacements");
				pw_print_begin_list(p);
				pw_print_begin_map(p);
				pw_print_key(p, "deletedRegion");
				pw_print_begin_map(p);
				pw_print_int_at(p, "startLine", f->line);
				pw_print_int_at(p, "startColumn", (gint64)f->fix_from + 1);
				pw_print_int_at(p, "endColumn", (gint64)f->fix_to + 1);
				pw_print_end(p);
				pw_print_key(p, "insertedContent");
				pw_print_begin_map(p);
				pw_print_str_at(p, "text", f->replacement);
				pw_print_end(p);
				pw_print_end(p);
				pw_print_end(p);
				pw_print_end(p);
				pw_print_end(p);
				pw_print_end(p);
				pw_print_end(p);
			}
			pw_print_end(p);
		}
	}
	pw_print_end(p);
	pw_print_end(p);
	pw_print_end(p);
	pw_print_end(p);
	pw_printer_free(p);
}

