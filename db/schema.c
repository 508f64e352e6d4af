/*
 * patchwarden: the schema, as an ordered list of migrations.  Migration
 * i takes the database from user_version i to i + 1.  Published
 * migrations are never edited; a change is a new migration at the end.
 */
#include <stddef.h>

#include "db/attention.h"
#include "db/decision.h"
#include "db/schema.h"
#include "db/totals.h"

static const char core[] =
	/* Lists a message was seen on; style lives in the configuration. */
	"CREATE TABLE list ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE"
	");"
	"CREATE TABLE message ("
	"  id INTEGER PRIMARY KEY,"
	"  msgid TEXT NOT NULL UNIQUE,"
	"  msgid_derived INTEGER NOT NULL DEFAULT 0,"
	"  kind TEXT NOT NULL CHECK (kind IN ('patch','cover','comment','pull','other')),"
	"  from_name TEXT NOT NULL DEFAULT '',"
	"  from_addr TEXT NOT NULL DEFAULT '',"
	"  subject TEXT NOT NULL DEFAULT '',"
	"  subject_clean TEXT NOT NULL DEFAULT '',"
	"  date INTEGER NOT NULL DEFAULT 0,"
	"  in_reply_to TEXT,"
	"  refs TEXT,"			/* space-separated Message-IDs */
	"  list_id TEXT,"
	"  auto_submitted TEXT,"
	"  recipients TEXT,"		/* newline-separated addresses */
	"  nrecipients INTEGER NOT NULL DEFAULT 0,"
	"  version INTEGER NOT NULL DEFAULT 1,"
	"  number INTEGER NOT NULL DEFAULT 0,"
	"  total INTEGER NOT NULL DEFAULT 0,"
	"  has_counter INTEGER NOT NULL DEFAULT 0,"
	"  rfc INTEGER NOT NULL DEFAULT 0,"
	"  prefixes TEXT NOT NULL DEFAULT '',"
	"  raw BLOB,"			/* moved to message_raw (migration raw) */
	"  git_blob TEXT,"
	"  source TEXT,"
	"  received_at INTEGER NOT NULL,"
	"  backfill INTEGER NOT NULL DEFAULT 1"
	");"
	"CREATE INDEX message_from_date ON message(from_addr, date);"
	"CREATE INDEX message_date ON message(date);"
	"CREATE TABLE message_list ("
	"  message INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,"
	"  list INTEGER NOT NULL REFERENCES list(id),"
	"  PRIMARY KEY (message, list)"
	") WITHOUT ROWID;"
	"CREATE TABLE series ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  from_addr TEXT NOT NULL DEFAULT '',"
	"  version INTEGER NOT NULL DEFAULT 1,"
	"  total INTEGER NOT NULL DEFAULT 0,"
	"  cover INTEGER REFERENCES message(id),"
	"  first_date INTEGER NOT NULL DEFAULT 0,"
	"  last_date INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX series_sender ON series(from_addr, version, total, first_date);"
	/* Message-IDs that lead to a series: its members and what they
	 * reference, first come first kept, as Patchwork keeps them. */
	"CREATE TABLE series_ref ("
	"  msgid TEXT PRIMARY KEY,"
	"  series INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE"
	") WITHOUT ROWID;"
	"CREATE INDEX series_ref_series ON series_ref(series);"
	"CREATE TABLE patch ("
	"  id INTEGER PRIMARY KEY,"
	"  message INTEGER NOT NULL UNIQUE REFERENCES message(id) ON DELETE CASCADE,"
	"  series INTEGER REFERENCES series(id),"
	"  number INTEGER NOT NULL DEFAULT 0,"
	"  pull_url TEXT,"
	"  checked_at INTEGER"
	");"
	"CREATE INDEX patch_series ON patch(series, number);"
	"CREATE TABLE finding ("
	"  id INTEGER PRIMARY KEY,"
	"  patch INTEGER NOT NULL REFERENCES patch(id) ON DELETE CASCADE,"
	"  rule TEXT NOT NULL,"
	"  severity INTEGER NOT NULL,"
	"  file TEXT,"
	"  line INTEGER NOT NULL DEFAULT 0,"
	"  col INTEGER NOT NULL DEFAULT 0,"
	"  message TEXT NOT NULL,"
	"  fix TEXT"
	");"
	"CREATE INDEX finding_patch ON finding(patch);"
	"CREATE INDEX finding_rule ON finding(rule);"
	"CREATE TABLE ingest_error ("
	"  id INTEGER PRIMARY KEY,"
	"  source TEXT NOT NULL,"
	"  location TEXT NOT NULL,"
	"  msgid TEXT,"
	"  error TEXT NOT NULL,"
	"  raw BLOB,"
	"  at INTEGER NOT NULL"
	");"
	"CREATE TABLE cursor ("
	"  source TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL,"
	"  updated_at INTEGER NOT NULL"
	") WITHOUT ROWID;";

/* The outbox of replies (db/outbox.c). */
static const char migration_outbox[] =
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('patch','series','flood')),"
	"  answers TEXT NOT NULL UNIQUE,"	/* "msg:<msgid>", "flood:<key>" */
	"  message INTEGER REFERENCES message(id) ON DELETE SET NULL,"
	"  state TEXT NOT NULL CHECK (state IN"
	"    ('pending','sending','sent','failed','suppressed')),"
	"  reason TEXT,"
	"  msgid TEXT NOT NULL UNIQUE,"
	"  in_reply_to TEXT,"
	"  mail_from TEXT NOT NULL,"
	"  rcpt_to TEXT NOT NULL,"
	"  recipients TEXT NOT NULL,"		/* newline-separated */
	"  subject TEXT NOT NULL,"
	"  raw BLOB NOT NULL,"			/* CRLF wire form */
	"  created_at INTEGER NOT NULL,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  last_attempt INTEGER,"
	"  sent_at INTEGER,"
	"  last_error TEXT,"
	"  smtp_code INTEGER NOT NULL DEFAULT 0,"
	"  transport TEXT"
	");"
	"CREATE INDEX outbox_due ON outbox(state, next_attempt);"
	"CREATE INDEX outbox_rcpt ON outbox(rcpt_to, created_at);"
	"CREATE INDEX outbox_created ON outbox(created_at);"
	"CREATE INDEX outbox_message ON outbox(message);";

/* Flood groups, members and fingerprint keys (db/flood.c). */
static const char migration_flood[] =
	/* Every group of related patches; most have one member.  A group is
	 * a flood once detected_at is set. */
	"CREATE TABLE flood_group ("
	"  id INTEGER PRIMARY KEY,"
	"  sender TEXT NOT NULL,"
	"  founder INTEGER NOT NULL,"		/* message that started it */
	"  size INTEGER NOT NULL DEFAULT 1,"
	"  nthreaded INTEGER NOT NULL DEFAULT 0,"
	"  ncovered INTEGER NOT NULL DEFAULT 0,"	/* counted once a flood */
	"  claimed_total INTEGER NOT NULL DEFAULT 0,"
	"  shared INTEGER NOT NULL DEFAULT 0,"	/* enum pw_flood_shared */
	"  first_seen INTEGER NOT NULL,"
	"  last_seen INTEGER NOT NULL,"
	"  detected_at INTEGER,"
	"  rank INTEGER NOT NULL DEFAULT -1,"	/* finding written, -1: none */
	"  subject TEXT,"
	"  subject_fp TEXT,"
	"  body_fp TEXT,"
	"  shape_fp TEXT,"
	"  reported_at INTEGER"
	");"
	"CREATE INDEX flood_group_floods ON flood_group(last_seen)"
	"  WHERE detected_at IS NOT NULL;"
	"CREATE TABLE flood_member ("
	"  message INTEGER PRIMARY KEY REFERENCES message(id) ON DELETE CASCADE,"
	"  patch INTEGER NOT NULL,"
	"  grp INTEGER NOT NULL,"
	"  date INTEGER NOT NULL,"
	"  threaded INTEGER NOT NULL,"
	"  covered INTEGER"			/* NULL until its group floods */
	");"
	"CREATE INDEX flood_member_grp ON flood_member(grp, date);"
	/* key: 64-bit hash of (fingerprint kind, sender, digest).  The
	 * subject, body and shape keys are filed by week of their Date
	 * (bucket), so that new keys land in a few pages instead of all
	 * over the index; patch-ids are looked up over the whole history. */
	"CREATE TABLE flood_key ("
	"  bucket INTEGER NOT NULL,"
	"  key INTEGER NOT NULL,"
	"  date INTEGER NOT NULL,"
	"  message INTEGER NOT NULL,"
	"  PRIMARY KEY (bucket, key, date, message)"
	") WITHOUT ROWID;"
	"CREATE TABLE flood_patch_id ("
	"  key INTEGER NOT NULL,"
	"  date INTEGER NOT NULL,"
	"  message INTEGER NOT NULL,"
	"  PRIMARY KEY (key, date, message)"
	") WITHOUT ROWID;"
	/* Series whose first observed patch got SERIES_OVERSIZED. */
	"CREATE TABLE flood_oversized ("
	"  series INTEGER PRIMARY KEY,"
	"  message INTEGER NOT NULL"
	");"
	"CREATE VIEW flood AS SELECT * FROM flood_group"
	"  WHERE detected_at IS NOT NULL;"
	/* These findings are facts about a patch's company, not its text:
	 * re-running the rules over a patch (which replaces its findings)
	 * keeps them.  Deleting the patch still removes them. */
	"CREATE TRIGGER flood_findings_keep BEFORE DELETE ON finding"
	"  WHEN old.rule IN ('FLOOD', 'FLOOD_SERIES', 'RESEND_IDENTICAL',"
	"   'SERIES_OVERSIZED')"
	"   AND EXISTS (SELECT 1 FROM patch WHERE id = old.patch)"
	"  BEGIN SELECT RAISE(IGNORE); END;";

/*
 * Raw messages live in the raw store (PATH-raw), named by raw_id; rows
 * stored before it keep their bytes in message.raw.
 */
static const char migration_raw[] =
	"ALTER TABLE message ADD COLUMN raw_id INTEGER;";

/*
 * The totals a message counts in (migration 15): every list together
 * (0), each of its lists, or -1 while it has none.  m is an SQL
 * expression of its id.
 */
#define TOTAL_LISTS(m) \
	"(SELECT 0 AS l UNION ALL SELECT list FROM message_list WHERE message = " \
	m " UNION ALL SELECT -1 WHERE NOT EXISTS (SELECT 1 FROM message_list" \
	" WHERE message = " m "))"

/*
 * The totals per sender (user_version 19).  TS_SELECT gives the rows
 * of patch P's change in total_sender (PW_TOTALS_RECOUNT_SENDERS):
 * severity sev, np patches whose most severe finding is sev and nf
 * findings of severity sev, multiplied by the c of each (l, c) of
 * lists; who and name are its poster, where more conditions.  Trigger
 * values only (old., new.) in P and lists: a subquery in FROM sees no
 * other table of the FROM.  One subquery in FROM per statement: SQLite
 * materializes a second one on every run of the trigger (a finding
 * took 0.4 ms to store, not 20 us).
 */
#define TS_LISTS(m) \
	"(SELECT 0 AS l, 1 AS c UNION ALL SELECT list, 1 FROM message_list" \
	" WHERE message = " m " UNION ALL SELECT -1, 1 WHERE NOT EXISTS" \
	" (SELECT 1 FROM message_list WHERE message = " m "))"
#define TS_WHO "coalesce(ms.addr, m.from_addr)"
#define TS_NAME "coalesce(ms.name, m.from_name)"
#define TS_PATCH_OF(m) "(SELECT id FROM patch WHERE message = " m ")"
#define TS_MESSAGE_OF(p) "(SELECT message FROM patch WHERE id = " p ")"
#define TS_FROM(P, lists) \
	" FROM " lists " l, patch p JOIN message m ON m.id = p.message" \
	" LEFT JOIN message_sender ms ON ms.message = m.id WHERE p.id = " P
#define TS_SELECT(P, lists, who, name, sev, np, nf, where) \
	TS_UPSERT("SELECT l.l, " who ", m.automated IS NOT NULL, " name ", " \
		  sev ", l.c * (" np "), l.c * (" nf "), l.c * (" np ")" \
		  " * (m.kind <> 'patch' AND m.kind <> 'pull')" \
		  TS_FROM(P, lists) where)
/* Patch P whole, sign 1 in, -1 out: its row and its findings'. */
#define TS_PATCH_ROW(P, lists, who, name, sign) \
	TS_SELECT(P, lists, who, name, "coalesce((SELECT max(severity)" \
		  " FROM finding WHERE patch = p.id), -1)", sign, "0", "")
#define TS_PATCH(P, lists, who, name, sign) \
	TS_PATCH_ROW(P, lists, who, name, sign) \
	TS_UPSERT("SELECT l.l, " who ", m.automated IS NOT NULL, " name "," \
		  " f.severity, 0, " sign " * l.c * count(*), 0" \
		  " FROM patch p JOIN message m ON m.id = p.message" \
		  " LEFT JOIN message_sender ms ON ms.message = m.id" \
		  " JOIN finding f ON f.patch = p.id, " lists " l" \
		  " WHERE p.id = " P " GROUP BY l.l, f.severity")
/* A patch as it is now, in every list it is on. */
#define TS_NOW(P, m, sign) TS_PATCH(P, TS_LISTS(m), TS_WHO, TS_NAME, sign)
/*
 * One finding of patch P in or out: its severity's count moves by one,
 * and the patch moves from the row of its most severe finding before
 * to the one after when they differ.  The most severe of P's other
 * findings is read from the index finding(patch, severity): a finding
 * must not regroup its patch's findings (a patch of 1,000 findings
 * took 1.4 s to store, not 30 ms).
 */
#define TS_OTHERS(P, id) \
	"coalesce((SELECT severity FROM finding WHERE patch = " P \
	" AND id <> " id " ORDER BY severity DESC LIMIT 1), -1)"
#define TS_FINDING(P, sev, np, nf, where) \
	TS_SELECT(P, TS_LISTS(TS_MESSAGE_OF(P)), TS_WHO, TS_NAME, sev, np, nf, \
		  where)
#define TS_FINDING_IN(P, id, sev) \
	TS_FINDING(P, sev, "0", "1", "") \
	TS_FINDING(P, TS_OTHERS(P, id), "-1", "0", \
		   " AND " sev " > " TS_OTHERS(P, id)) \
	TS_FINDING(P, sev, "1", "0", " AND " sev " > " TS_OTHERS(P, id))
#define TS_FINDING_OUT(P, id, sev) \
	TS_FINDING(P, sev, "0", "-1", "") \
	TS_FINDING(P, sev, "-1", "0", " AND " sev " > " TS_OTHERS(P, id)) \
	TS_FINDING(P, TS_OTHERS(P, id), "1", "0", \
		   " AND " sev " > " TS_OTHERS(P, id))
/* Message m's patch as it is, in, and as it was, posted by who, out. */
#define TS_POSTER_WAS(m, who, name) \
	TS_NOW(TS_PATCH_OF(m), m, "1") \
	TS_PATCH(TS_PATCH_OF(m), TS_LISTS(m), who, name, "-1")
/* rows end in a WHERE or GROUP BY: no ON of a join before ON CONFLICT. */
#define TS_UPSERT(rows) \
	"  INSERT INTO total_sender " rows \
	"   ON CONFLICT (list, who, automated, name, sev) DO UPDATE SET" \
	"   patches = patches + excluded.patches," \
	"   findings = findings + excluded.findings," \
	"   other = other + excluded.other;"
/* What the senders' totals read of a message. */
#define TS_MESSAGE_CHANGED \
	" WHEN old.from_addr IS NOT new.from_addr" \
	"  OR old.from_name IS NOT new.from_name" \
	"  OR (old.automated IS NULL) <> (new.automated IS NULL)" \
	"  OR (old.kind IN ('patch', 'pull')) <> (new.kind IN ('patch', 'pull'))"

/*
 * The attention queue (user_version 20): AT_REDO counts again the rows
 * of the patches whose ids the SQL list ids gives; AT_COUNTED says
 * whether a finding's severity and rule can count (the trigger's WHEN).
 */
#define AT_REDO(ids) \
	" DELETE FROM attention WHERE patch IN (" ids ");" \
	" INSERT INTO attention " PW_ATTENTION_RECOUNT("p.id IN (" ids ")") ";"
#define AT_COUNTED(sev, rule) \
	"(" sev " >= 1 AND " rule " NOT IN (" PW_ATTENTION_FLOOD_RULES "))"
#define AT_PATCH_OF(m) "SELECT id FROM patch WHERE message = " m
#define AT_DETECTED(grp) \
	"EXISTS (SELECT 1 FROM flood_group WHERE id = " grp \
	" AND detected_at IS NOT NULL)"

/*
 * The senders' dates (user_version 21): TSD_WIDEN takes message m's
 * patch's date into the rows of its poster on each (l) of lists (a row
 * it makes holds that patch alone: its group had none);
 * TSD_STALE marks stale the rows of the senders the SQL who gives
 * (where: more conditions); TSD_WHO(m) is message m's poster.
 */
#define TSD_WHO(m) \
	"SELECT coalesce((SELECT addr FROM message_sender WHERE message = " \
	m "), (SELECT from_addr FROM message WHERE id = " m "))"
#define TSD_WIDEN(lists, m) \
	"  INSERT INTO total_sender_date SELECT l.l, " TS_WHO "," \
	"   m.automated IS NOT NULL, m.date, m.date, 0 FROM " lists " l," \
	"   message m LEFT JOIN message_sender ms ON ms.message = m.id" \
	"   WHERE m.id = " m \
	"   ON CONFLICT (list, who, automated) DO UPDATE SET" \
	"   first = coalesce(min(first, excluded.first), first, excluded.first)," \
	"   last = coalesce(max(last, excluded.last), last, excluded.last);"
#define TSD_STALE(who, where) \
	"  UPDATE total_sender_date SET stale = 1 WHERE who IN (" who ")" \
	where ";"

/*
 * New migrations go at the end of this array, their text here, in this
 * file: the one place every table is defined.
 */
static const char *const migrations[] = {
	core,
	migration_outbox,
	migration_flood,
	migration_raw,
	/* message_from_date served no query; it cost every insert a
	 * descent into an index that grows as randomly as the senders. */
	"DROP INDEX IF EXISTS message_from_date;",
	/*
	 * message.kind's CHECK as comparisons: "kind IN (...)" made every
	 * insert build a temporary index of the five kinds.  Rewritten in
	 * place (SQLite's documented way for a constraint all rows keep
	 * satisfying); the table created and dropped after it bumps the
	 * schema cookie, so that every connection reads the new text.
	 */
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema SET sql = replace(sql,"
	" 'CHECK (kind IN (''patch'',''cover'',''comment'',''pull'',''other''))',"
	" 'CHECK (kind = ''patch'' OR kind = ''cover'' OR kind = ''comment''"
	" OR kind = ''pull'' OR kind = ''other'')')"
	" WHERE type = 'table' AND name = 'message';"
	"PRAGMA writable_schema = OFF;"
	"CREATE TABLE schema_cookie_bump (x);"
	"DROP TABLE schema_cookie_bump;",
	/*
	 * The text of the added line a finding is about (user_version 7),
	 * stored with it, so that a reply quotes it from the row instead of
	 * parsing the raw message again.  Findings stored before have none:
	 * their replies omit the quote until "db recheck" stores it.  A
	 * table beside finding rather than a column, so that the migration
	 * can run on a store that has it already (IF NOT EXISTS; ALTER
	 * TABLE ADD COLUMN cannot): a store whose version number was set
	 * back, as tests/integration/ingest.sh does to make an old store
	 * out of a new one, migrates forward again.
	 */
	"CREATE TABLE IF NOT EXISTS finding_line ("
	"  finding INTEGER PRIMARY KEY REFERENCES finding(id) ON DELETE CASCADE,"
	"  text TEXT NOT NULL"
	");",
	/*
	 * The sender of a message (user_version 8): the mail's From header
	 * when an in-body From: names someone else as the author (who is
	 * message.from_*).  Replies go to the sender, floods are counted by
	 * sender.  Only such messages have a row.  A table for the reason
	 * finding_line is one: the migration can run again.
	 */
	"CREATE TABLE IF NOT EXISTS message_sender ("
	"  message INTEGER PRIMARY KEY REFERENCES message(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  addr TEXT NOT NULL"
	");",
	/*
	 * message.date NULL when the Date is unknown (user_version 9):
	 * unreadable, or impossible (before 1990).  It was 0, which the
	 * reply policy's age limit took for a date it could not judge, and
	 * let through; rows stored before keep no impossible date either.  The NOT NULL is dropped in place as migration 6
	 * rewrote the kind CHECK (every row satisfies the looser column);
	 * writable_schema = RESET makes this connection read the new text
	 * before the rows are set to NULL, and the table created and
	 * dropped bumps the schema cookie for every other connection.  Run
	 * twice, it changes nothing more.
	 */
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema SET sql = replace(sql,"
	" 'date INTEGER NOT NULL DEFAULT 0,', 'date INTEGER,')"
	" WHERE type = 'table' AND name = 'message';"
	"PRAGMA writable_schema = RESET;"
	"CREATE TABLE schema_cookie_bump (x);"
	"DROP TABLE schema_cookie_bump;"
	"UPDATE message SET date = NULL WHERE date < 631152000;",	/* 1990 */
	/*
	 * Subscriptions (user_version 10, db/subscription.c): the lists
	 * the service polls, with the health of their last polls.  A
	 * source's cursors (last commit per epoch, UIDVALIDITY and last
	 * UID) are cursor rows named "sub:ID:...", written in the
	 * transaction of the messages they cover.  Messages an archive
	 * removed (a public-inbox "d" commit) are marked in
	 * message_removed, not deleted.
	 */
	"CREATE TABLE IF NOT EXISTS subscription ("
	/* Never reused: cursors and mirrors are named by it. */
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  name TEXT NOT NULL UNIQUE,"
	"  url TEXT NOT NULL,"
	"  kind TEXT NOT NULL,"			/* public-inbox, imap, maildir */
	"  list TEXT,"				/* file messages under it, or List-Id */
	"  interval INTEGER NOT NULL,"		/* seconds between polls */
	"  paused INTEGER NOT NULL DEFAULT 0,"
	"  backfilled INTEGER NOT NULL DEFAULT 0,"	/* a first poll completed */
	"  created_at INTEGER NOT NULL,"
	"  last_poll INTEGER,"
	"  last_ok INTEGER,"
	"  next_poll INTEGER NOT NULL DEFAULT 0,"
	"  failures INTEGER NOT NULL DEFAULT 0,"	/* polls failed in a row */
	"  last_error TEXT,"
	"  messages INTEGER NOT NULL DEFAULT 0"	/* new messages it brought */
	");"
	"CREATE TABLE IF NOT EXISTS message_removed ("
	"  message INTEGER PRIMARY KEY REFERENCES message(id) ON DELETE CASCADE,"
	"  at INTEGER NOT NULL,"
	"  source TEXT"
	");",
	/*
	 * The indexes behind the filters of "query" and the dashboard
	 * (user_version 11): a list's messages, series by date, findings
	 * by file, a sender's posted mail and floods.  IF NOT EXISTS: it
	 * can run again.
	 */
	"CREATE INDEX IF NOT EXISTS message_list_list ON message_list(list, message);"
	/* Messages by date with their kind: stats per day count them from
	 * the index alone, without reading each message's row.  It takes
	 * message_date's place (no insert pays for one more index). */
	"CREATE INDEX IF NOT EXISTS message_date_kind ON message(date, kind);"
	"DROP INDEX IF EXISTS message_date;"
	/* A patch's findings with their rules: counting findings by rule
	 * (stats, has-findings, rule filters) reads the index alone.  It
	 * takes finding_patch's place. */
	"CREATE INDEX IF NOT EXISTS finding_patch_rule ON finding(patch, rule);"
	"DROP INDEX IF EXISTS finding_patch;"
	"CREATE INDEX IF NOT EXISTS series_last ON series(last_date);"
	"CREATE INDEX IF NOT EXISTS series_first ON series(first_date);"
	"CREATE INDEX IF NOT EXISTS finding_file ON finding(file);"
	"CREATE INDEX IF NOT EXISTS message_sender_addr ON message_sender(addr);"
	/* An author's patches (not all mail: each index entry costs an
	 * insert, and only patches are asked for by author). */
	"CREATE INDEX IF NOT EXISTS message_patch_from"
	"  ON message(from_addr, date) WHERE kind = 'patch';"
	"CREATE INDEX IF NOT EXISTS flood_group_sender"
	"  ON flood_group(sender, last_seen) WHERE detected_at IS NOT NULL;",
	/*
	 * The raw ids in use, in order (user_version 12): "db check" and
	 * "db stats" walk them to find the raw rows no message names
	 * (db/care.c), check under the main store's write lock; without
	 * the index that was a scan of every message row and a sort.
	 * Only messages with raw bytes have an entry, and raw ids grow,
	 * so an insert appends to its end.  IF NOT EXISTS: it can run
	 * again.
	 */
	"CREATE INDEX IF NOT EXISTS message_raw_id"
	"  ON message(raw_id) WHERE raw_id IS NOT NULL;",
	/*
	 * message.automated (user_version 13): why a machine sent the
	 * message (struct pw_mail's automated), NULL when a person did.
	 * Replies and person-facing counts read it.  The column is added
	 * as ALTER TABLE ADD COLUMN adds one (its text appended to the
	 * table's, old rows reading NULL), through writable_schema and
	 * only when it is not there: run again, on a store whose version
	 * number was set back, it changes nothing.  The table created and
	 * dropped bumps the schema cookie for every other connection.
	 * Rows stored before keep what they said: Auto-Submitted.
	 */
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema"
	" SET sql = substr(rtrim(sql), 1, length(rtrim(sql)) - 1)"
	" || ', automated TEXT)'"
	" WHERE type = 'table' AND name = 'message' AND rtrim(sql) LIKE '%)'"
	" AND sql NOT LIKE '%automated TEXT%';"
	"PRAGMA writable_schema = RESET;"
	"CREATE TABLE schema_cookie_bump (x);"
	"DROP TABLE schema_cookie_bump;"
	/* The value's first token, as checks/message.c reads it: before
	 * any parameter (';') or comment ('('), trimmed, 64 bytes at most;
	 * "no" is a person's. */
	"UPDATE message SET automated = 'Auto-Submitted: ' || trim(substr("
	"  auto_submitted, 1, min(64, instr(auto_submitted || ';', ';') - 1,"
	"  instr(auto_submitted || '(', '(') - 1)))"
	" WHERE automated IS NULL AND auto_submitted IS NOT NULL"
	" AND lower(trim(substr(auto_submitted, 1, min(64,"
	"  instr(auto_submitted || ';', ';') - 1,"
	"  instr(auto_submitted || '(', '(') - 1)))) NOT IN ('', 'no');",
	/*
	 * The checks owed to Patchwork instances (db/pwcheck.c): one row
	 * per patch message and [patchwork NAME], stored with the patch,
	 * claimed (posting) before the request, recorded after.  A row
	 * left in posting by a dead process comes back unsure: the poster
	 * looks for its check before posting again.  IF NOT EXISTS: it
	 * can run again.
	 */
	"CREATE TABLE IF NOT EXISTS pwcheck ("
	"  id INTEGER PRIMARY KEY,"
	"  message INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,"
	"  instance TEXT NOT NULL,"		/* NAME of [patchwork NAME] */
	"  msgid TEXT NOT NULL,"		/* without <> */
	"  state TEXT NOT NULL CHECK (state = 'pending' OR state = 'posting'"
	"    OR state = 'posted' OR state = 'failed'),"
	"  unsure INTEGER NOT NULL DEFAULT 0,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  created_at INTEGER NOT NULL,"
	"  next_attempt INTEGER NOT NULL DEFAULT 0,"
	"  last_attempt INTEGER,"
	"  posted_at INTEGER,"
	"  check_state TEXT,"			/* success, warning, fail */
	"  description TEXT,"
	"  target_url TEXT,"
	"  http_status INTEGER NOT NULL DEFAULT 0,"
	"  patch_id INTEGER,"			/* Patchwork's */
	"  check_url TEXT,"
	"  last_error TEXT,"
	"  UNIQUE (message, instance)"
	");"
	"CREATE INDEX IF NOT EXISTS pwcheck_due ON pwcheck(state, next_attempt);",
	/*
	 * Maintainers' decisions and contributors' opt-outs (db/decision.c):
	 * who decided, when, how (cli, web, or mail with the command mail's
	 * Message-ID) and why.  finding_decision lists the findings a live
	 * wrong or ignore decision covers; the trigger covers the findings
	 * stored after the decision (new patches, rechecks), so that every
	 * later check honours it.  IF NOT EXISTS: it can run again.
	 */
	"CREATE TABLE IF NOT EXISTS decision ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind = 'wrong' OR kind = 'ignore'"
	"   OR kind = 'recheck' OR kind = 'stop'),"
	"  msgid TEXT,"
	"  finding INTEGER,"
	"  rule TEXT,"
	"  file TEXT,"
	"  line INTEGER NOT NULL DEFAULT 0,"
	"  path TEXT,"
	"  list TEXT,"
	"  addr TEXT,"
	"  by_addr TEXT NOT NULL,"
	"  at INTEGER NOT NULL,"
	"  via TEXT NOT NULL CHECK (via = 'cli' OR via = 'web' OR via = 'mail'),"
	"  via_msgid TEXT,"
	"  reason TEXT,"
	"  undone_at INTEGER,"
	"  undone_by TEXT"
	");"
	"CREATE INDEX IF NOT EXISTS decision_via ON decision(via_msgid)"
	"  WHERE via_msgid IS NOT NULL;"
	"CREATE INDEX IF NOT EXISTS decision_stop ON decision(addr)"
	"  WHERE kind = 'stop' AND undone_at IS NULL;"
	"CREATE TABLE IF NOT EXISTS finding_decision ("
	"  finding INTEGER NOT NULL REFERENCES finding(id) ON DELETE CASCADE,"
	"  decision INTEGER NOT NULL REFERENCES decision(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (finding, decision)"
	") WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS finding_decision_decision"
	"  ON finding_decision(decision);"
	/* The WHEN keeps a store without decisions from paying a join for
	 * every finding it stores. */
	"CREATE TRIGGER IF NOT EXISTS finding_decided AFTER INSERT ON finding"
	"  WHEN EXISTS (SELECT 1 FROM decision WHERE undone_at IS NULL"
	"   AND (kind = 'wrong' OR kind = 'ignore'))"
	"  BEGIN INSERT OR IGNORE INTO finding_decision (finding, decision)"
	"   SELECT new.id, d.id FROM decision d, patch p"
	"   JOIN message m ON m.id = p.message"
	"   WHERE p.id = new.patch AND d.undone_at IS NULL"
	"   AND " PW_DECISION_COVERS("new", "m") ";"
	"  END;",
	/*
	 * Weekly digests (db/digest.c): one row per list and period, the
	 * period's end unique per list, so that a digest is composed once
	 * whatever crashes or runs again; msgid and refs thread the next
	 * one under it; outbox NULL when the period had nothing to say
	 * (nothing was sent, the period is covered all the same).  The
	 * outbox takes the kind 'digest': its CHECK is widened as
	 * migration 13 widens the message table, through writable_schema
	 * and only when not done (rows stored before all still pass it).
	 */
	"CREATE TABLE IF NOT EXISTS digest ("
	"  id INTEGER PRIMARY KEY,"
	"  list TEXT NOT NULL,"
	"  since INTEGER NOT NULL,"
	"  until INTEGER NOT NULL,"
	"  msgid TEXT,"
	"  refs TEXT,"			/* space-separated, oldest first */
	"  outbox INTEGER REFERENCES outbox(id) ON DELETE SET NULL,"
	"  created_at INTEGER NOT NULL,"
	"  UNIQUE (list, until)"
	");"
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema SET sql = replace(sql,"
	" 'CHECK (kind IN (''patch'',''series'',''flood''))',"
	" 'CHECK (kind IN (''patch'',''series'',''flood'',''digest''))')"
	" WHERE type = 'table' AND name = 'outbox'"
	" AND sql NOT LIKE '%''digest''%';"
	"PRAGMA writable_schema = RESET;"
	"CREATE TABLE schema_cookie_bump (x);"
	"DROP TABLE schema_cookie_bump;",
	/*
	 * Each subscription's polls (db/ops.c), counted by every poll in
	 * the transaction that records its end, for /metrics: how many,
	 * how many failed, the seconds they took.  IF NOT EXISTS: it can
	 * run again.
	 */
	"CREATE TABLE IF NOT EXISTS poll_stat ("
	"  subscription INTEGER PRIMARY KEY"
	"    REFERENCES subscription(id) ON DELETE CASCADE,"
	"  polls INTEGER NOT NULL DEFAULT 0,"
	"  failures INTEGER NOT NULL DEFAULT 0,"
	"  seconds REAL NOT NULL DEFAULT 0,"
	"  last_seconds REAL NOT NULL DEFAULT 0"
	");",
	/*
	 * Totals per list and day (db/totals.c), so that the dashboard's
	 * overview and stats read a few thousand rows, not every message
	 * and finding of a large store: messages by kind, findings by rule
	 * and severity.  list is a list's id, 0 for every list together
	 * (each message once), or -1 for the messages on no list; day is the message's date / 86400 (UTC), -1
	 * when it has none.  Triggers keep them in the transaction of each
	 * write, whoever writes (ingest, recheck, flood detection, an
	 * operator's DELETE), so there is one truth: the rows.  Foreign-key
	 * actions run after their parent row is gone, so a message deleted
	 * is taken out of the totals once, before, with its lists and
	 * findings, and the cascaded deletes of those find no message and
	 * count nothing.  Each change is an upsert of a signed count.  The
	 * totals are made again from the rows: run again, it changes
	 * nothing.
	 */
	"CREATE TABLE IF NOT EXISTS total_message ("
	"  list INTEGER NOT NULL,"
	"  day INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  n INTEGER NOT NULL,"
	"  PRIMARY KEY (list, day, kind)"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS total_finding ("
	"  list INTEGER NOT NULL,"
	"  day INTEGER NOT NULL,"
	"  rule TEXT NOT NULL,"
	"  severity INTEGER NOT NULL,"
	"  n INTEGER NOT NULL,"
	"  PRIMARY KEY (list, day, rule, severity)"
	") WITHOUT ROWID;"
	"CREATE TRIGGER IF NOT EXISTS total_message_insert AFTER INSERT ON message"
	" BEGIN"
	"  INSERT INTO total_message VALUES (0, coalesce(new.date / 86400, -1),"
	"   new.kind, 1), (-1, coalesce(new.date / 86400, -1), new.kind, 1)"
	"   ON CONFLICT (list, day, kind) DO UPDATE SET n = n + 1;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_message_delete BEFORE DELETE ON message"
	" BEGIN"
	"  INSERT INTO total_message SELECT l.l, coalesce(old.date / 86400, -1),"
	"   old.kind, -1 FROM " TOTAL_LISTS("old.id") " l WHERE true"
	"   ON CONFLICT (list, day, kind) DO UPDATE SET n = n + excluded.n;"
	"  INSERT INTO total_finding SELECT l.l, coalesce(old.date / 86400, -1),"
	"   g.rule, g.severity, -g.c FROM " TOTAL_LISTS("old.id") " l,"
	"   (SELECT f.rule AS rule, f.severity AS severity, count(*) AS c"
	"   FROM patch p JOIN finding f ON f.patch = p.id WHERE p.message = old.id"
	"   GROUP BY 1, 2) g WHERE true"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n + excluded.n;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_message_update"
	" AFTER UPDATE OF kind, date ON message"
	" WHEN old.kind IS NOT new.kind"
	"  OR coalesce(old.date / 86400, -1) <> coalesce(new.date / 86400, -1)"
	" BEGIN"
	"  INSERT INTO total_message SELECT l.l, d.day, d.kind, d.c FROM"
	"   " TOTAL_LISTS("new.id") " l, (SELECT coalesce(old.date / 86400, -1)"
	"   AS day, old.kind AS kind, -1 AS c UNION ALL SELECT"
	"   coalesce(new.date / 86400, -1), new.kind, 1) d WHERE true"
	"   ON CONFLICT (list, day, kind) DO UPDATE SET n = n + excluded.n;"
	"  INSERT INTO total_finding SELECT l.l, d.day, g.rule, g.severity,"
	"   d.c * g.c FROM " TOTAL_LISTS("new.id") " l, (SELECT"
	"   coalesce(old.date / 86400, -1) AS day, -1 AS c UNION ALL SELECT"
	"   coalesce(new.date / 86400, -1), 1) d, (SELECT f.rule AS rule,"
	"   f.severity AS severity, count(*) AS c FROM patch p JOIN finding f"
	"   ON f.patch = p.id WHERE p.message = new.id GROUP BY 1, 2) g WHERE true"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n + excluded.n;"
	" END;"
	/* A message's first list takes it (and its findings) from list -1,
	 * its last one gives it back. */
	"CREATE TRIGGER IF NOT EXISTS total_list_insert AFTER INSERT ON message_list"
	" BEGIN"
	"  INSERT INTO total_message SELECT new.list, coalesce(m.date / 86400, -1),"
	"   m.kind, 1 FROM message m WHERE m.id = new.message"
	"   ON CONFLICT (list, day, kind) DO UPDATE SET n = n + 1;"
	"  INSERT INTO total_message SELECT -1, coalesce(m.date / 86400, -1),"
	"   m.kind, -1 FROM message m WHERE m.id = new.message AND NOT EXISTS"
	"   (SELECT 1 FROM message_list WHERE message = new.message"
	"   AND list <> new.list)"
	"   ON CONFLICT (list, day, kind) DO UPDATE SET n = n - 1;"
	" END;"
	/* Apart, so that ingest (whose new message has no findings yet
	 * when it is filed under its lists) skips it. */
	"CREATE TRIGGER IF NOT EXISTS total_list_insert_findings"
	" AFTER INSERT ON message_list"
	" WHEN EXISTS (SELECT 1 FROM patch p JOIN finding f ON f.patch = p.id"
	"  WHERE p.message = new.message)"
	" BEGIN"
	"  INSERT INTO total_finding SELECT l.l, coalesce(m.date / 86400, -1),"
	"   f.rule, f.severity, l.c * count(*) FROM message m JOIN patch p"
	"   ON p.message = m.id JOIN finding f ON f.patch = p.id,"
	"   (SELECT new.list AS l, 1 AS c UNION ALL SELECT -1, -1"
	"   WHERE NOT EXISTS (SELECT 1 FROM message_list"
	"   WHERE message = new.message AND list <> new.list)) l"
	"   WHERE m.id = new.message GROUP BY 1, 3, 4"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n + excluded.n;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_list_delete AFTER DELETE ON message_list"
	" WHEN EXISTS (SELECT 1 FROM message WHERE id = old.message)"
	" BEGIN"
	"  INSERT INTO total_message SELECT l.l, coalesce(m.date / 86400, -1),"
	"   m.kind, l.c FROM message m, (SELECT old.list AS l, -1 AS c UNION ALL"
	"   SELECT -1, 1 WHERE NOT EXISTS (SELECT 1 FROM message_list"
	"   WHERE message = old.message)) l WHERE m.id = old.message"
	"   ON CONFLICT (list, day, kind) DO UPDATE SET n = n + excluded.n;"
	"  INSERT INTO total_finding SELECT l.l, coalesce(m.date / 86400, -1),"
	"   f.rule, f.severity, l.c * count(*) FROM message m JOIN patch p"
	"   ON p.message = m.id JOIN finding f ON f.patch = p.id,"
	"   (SELECT old.list AS l, -1 AS c UNION ALL SELECT -1, 1"
	"   WHERE NOT EXISTS (SELECT 1 FROM message_list"
	"   WHERE message = old.message)) l"
	"   WHERE m.id = old.message GROUP BY 1, 3, 4"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n + excluded.n;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_patch_delete BEFORE DELETE ON patch"
	" WHEN EXISTS (SELECT 1 FROM message WHERE id = old.message)"
	" BEGIN"
	"  INSERT INTO total_finding SELECT l.l, coalesce(m.date / 86400, -1),"
	"   f.rule, f.severity, -count(*) FROM message m,"
	"   " TOTAL_LISTS("old.message") " l, finding f"
	"   WHERE m.id = old.message AND f.patch = old.id GROUP BY 1, 3, 4"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n + excluded.n;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_finding_insert AFTER INSERT ON finding"
	" BEGIN"
	"  INSERT INTO total_finding SELECT l.l, coalesce(m.date / 86400, -1),"
	"   new.rule, new.severity, 1 FROM patch p JOIN message m"
	"   ON m.id = p.message, " TOTAL_LISTS("(SELECT message FROM patch WHERE id = new.patch)") " l"
	"   WHERE p.id = new.patch"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n + 1;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_finding_delete AFTER DELETE ON finding"
	" BEGIN"
	"  INSERT INTO total_finding SELECT l.l, coalesce(m.date / 86400, -1),"
	"   old.rule, old.severity, -1 FROM patch p JOIN message m"
	"   ON m.id = p.message, " TOTAL_LISTS("(SELECT message FROM patch WHERE id = old.patch)") " l"
	"   WHERE p.id = old.patch"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n - 1;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_finding_update"
	" AFTER UPDATE OF rule, severity, patch ON finding"
	" BEGIN"
	"  INSERT INTO total_finding SELECT l.l, coalesce(m.date / 86400, -1),"
	"   old.rule, old.severity, -1 FROM patch p JOIN message m"
	"   ON m.id = p.message, " TOTAL_LISTS("(SELECT message FROM patch WHERE id = old.patch)") " l"
	"   WHERE p.id = old.patch"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n - 1;"
	"  INSERT INTO total_finding SELECT l.l, coalesce(m.date / 86400, -1),"
	"   new.rule, new.severity, 1 FROM patch p JOIN message m"
	"   ON m.id = p.message, " TOTAL_LISTS("(SELECT message FROM patch WHERE id = new.patch)") " l"
	"   WHERE p.id = new.patch"
	"   ON CONFLICT (list, day, rule, severity) DO UPDATE SET n = n + 1;"
	" END;"
	"DELETE FROM total_message;"
	"DELETE FROM total_finding;"
	"INSERT INTO total_message " PW_TOTALS_RECOUNT_MESSAGES ";"
	"INSERT INTO total_finding " PW_TOTALS_RECOUNT_FINDINGS ";",
	/*
	 * Totals per sender (db/totals.c), so that the senders page and
	 * its API read a row per sender, list, name and severity, not
	 * every patch: the patches each sender posted by their most severe
	 * finding, the findings by severity, per list (0 every list, -1
	 * none) and person or machine (message.automated), in the shape
	 * of PW_TOTALS_RECOUNT_SENDERS.  Kept as the totals per list and
	 * day are: triggers, in the transaction of each write, whoever
	 * writes; each change takes a patch's rows as they were and adds
	 * them as they are (BEFORE triggers only where no INSERT OR IGNORE
	 * and no RAISE(IGNORE) can skip the matching AFTER one); a message
	 * deleted leaves once, before, and its cascaded rows find no
	 * message.  Made again from the rows: run again, it changes nothing.
	 */
	"CREATE TABLE IF NOT EXISTS total_sender ("
	"  list INTEGER NOT NULL,"
	"  who TEXT NOT NULL,"
	"  automated INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  sev INTEGER NOT NULL,"
	"  patches INTEGER NOT NULL,"
	"  findings INTEGER NOT NULL,"
	"  other INTEGER NOT NULL,"
	"  PRIMARY KEY (list, who, automated, name, sev)"
	") WITHOUT ROWID;"
	/* A new patch has no findings yet (INSERT OR IGNORE keeps a
	 * patch's row and id): its row alone. */
	"CREATE TRIGGER IF NOT EXISTS total_sender_patch_insert"
	" AFTER INSERT ON patch BEGIN"
	TS_PATCH_ROW("new.id", TS_LISTS("new.message"), TS_WHO, TS_NAME, "1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_patch_delete"
	" BEFORE DELETE ON patch BEGIN"
	TS_NOW("old.id", "old.message", "-1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_patch_move_out"
	" BEFORE UPDATE OF message ON patch WHEN old.message <> new.message BEGIN"
	TS_NOW("old.id", "old.message", "-1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_patch_move_in"
	" AFTER UPDATE OF message ON patch WHEN old.message <> new.message BEGIN"
	TS_NOW("new.id", "new.message", "1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_message_delete"
	" BEFORE DELETE ON message BEGIN"
	TS_NOW(TS_PATCH_OF("old.id"), "old.id", "-1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_message_out"
	" BEFORE UPDATE OF from_addr, from_name, automated, kind ON message"
	TS_MESSAGE_CHANGED " BEGIN"
	TS_NOW(TS_PATCH_OF("old.id"), "old.id", "-1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_message_in"
	" AFTER UPDATE OF from_addr, from_name, automated, kind ON message"
	TS_MESSAGE_CHANGED " BEGIN"
	TS_NOW(TS_PATCH_OF("new.id"), "new.id", "1")
	" END;"
	/* An in-body author: the patch moves from the mail's From to
	 * them, and back when the row goes. */
	"CREATE TRIGGER IF NOT EXISTS total_sender_author_insert"
	" AFTER INSERT ON message_sender"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = new.message) BEGIN"
	TS_POSTER_WAS("new.message", "m.from_addr", "m.from_name")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_author_delete"
	" AFTER DELETE ON message_sender"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = old.message) BEGIN"
	TS_POSTER_WAS("old.message", "old.addr", "old.name")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_author_update"
	" AFTER UPDATE OF name, addr ON message_sender"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = new.message) BEGIN"
	TS_POSTER_WAS("new.message", "old.addr", "old.name")
	" END;"
	/* A message's first list takes it from list -1, its last one
	 * gives it back.  Only a message with a patch counts: ingest files
	 * a message, and names its in-body author, before its patch. */
	"CREATE TRIGGER IF NOT EXISTS total_sender_list_insert"
	" AFTER INSERT ON message_list"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = new.message) BEGIN"
	TS_PATCH(TS_PATCH_OF("new.message"),
		 "(SELECT new.list AS l, 1 AS c UNION ALL SELECT -1, -1"
		 " WHERE NOT EXISTS (SELECT 1 FROM message_list"
		 " WHERE message = new.message AND list <> new.list))",
		 TS_WHO, TS_NAME, "1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_list_delete"
	" AFTER DELETE ON message_list"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = old.message) BEGIN"
	TS_PATCH(TS_PATCH_OF("old.message"),
		 "(SELECT old.list AS l, -1 AS c UNION ALL SELECT -1, 1"
		 " WHERE NOT EXISTS (SELECT 1 FROM message_list"
		 " WHERE message = old.message))",
		 TS_WHO, TS_NAME, "1")
	" END;"
	/* A finding moves its patch to its severity when it is the most
	 * severe (TS_FINDING_IN).  AFTER only: flood_findings_keep may
	 * ignore a delete. */
	"CREATE INDEX IF NOT EXISTS finding_patch_severity"
	"  ON finding(patch, severity);"
	/* A sender's pull requests by date, beside message_patch_from:
	 * the senders page reads their first and last dates from both. */
	"CREATE INDEX IF NOT EXISTS message_pull_from"
	"  ON message(from_addr, date) WHERE kind = 'pull';"
	"CREATE TRIGGER IF NOT EXISTS total_sender_finding_insert"
	" AFTER INSERT ON finding BEGIN"
	TS_FINDING_IN("new.patch", "new.id", "new.severity")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_finding_delete"
	" AFTER DELETE ON finding BEGIN"
	TS_FINDING_OUT("old.patch", "old.id", "old.severity")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_finding_update"
	" AFTER UPDATE OF severity, patch ON finding"
	" WHEN old.severity <> new.severity OR old.patch <> new.patch BEGIN"
	TS_FINDING_OUT("old.patch", "new.id", "old.severity")
	TS_FINDING_IN("new.patch", "new.id", "new.severity")
	" END;"
	"DELETE FROM total_sender;"
	"INSERT INTO total_sender " PW_TOTALS_RECOUNT_SENDERS ";",
	/*
	 * The attention queue (db/attention.h), so that the overview
	 * reads a row per patch that needs a maintainer, not every
	 * finding: PW_ATTENTION_RECOUNT kept by triggers.  A finding
	 * stored adds one to its patch's row (a decision taken with it,
	 * by finding_decided, counts the patch again, whichever trigger
	 * runs first); every rarer change (a finding deleted or changed,
	 * a decision, a list, a message reclassified or redated, a flood
	 * detected or merged) counts the patches it touches again from
	 * their rows.  Made again from the rows: run again, it changes
	 * nothing.
	 */
	"CREATE TABLE IF NOT EXISTS attention ("
	"  list INTEGER NOT NULL,"
	"  patch INTEGER NOT NULL,"
	"  date INTEGER NOT NULL,"
	"  errs INTEGER NOT NULL,"
	"  warns INTEGER NOT NULL,"
	"  PRIMARY KEY (list, patch)"
	") WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS attention_newest"
	"  ON attention(list, date, patch);"
	"CREATE INDEX IF NOT EXISTS attention_patch ON attention(patch);"
	"CREATE TRIGGER IF NOT EXISTS attention_finding_insert"
	" AFTER INSERT ON finding"
	" WHEN " AT_COUNTED("new.severity", "new.rule") " BEGIN"
	"  INSERT INTO attention SELECT coalesce(ml.list, -1), p.id,"
	"   coalesce(m.date, 0), new.severity >= 2, new.severity = 1"
	"   FROM patch p JOIN message m ON m.id = p.message"
	"   LEFT JOIN message_list ml ON ml.message = m.id"
	"   WHERE p.id = new.patch AND "
	PW_ATTENTION_COUNTS("new.id", "new.severity", "new.rule")
	"   ON CONFLICT (list, patch) DO UPDATE SET errs = errs + excluded.errs,"
	"   warns = warns + excluded.warns;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_finding_delete"
	" AFTER DELETE ON finding"
	" WHEN " AT_COUNTED("old.severity", "old.rule") " BEGIN"
	AT_REDO("old.patch")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_finding_update"
	" AFTER UPDATE OF severity, rule, patch ON finding"
	" WHEN " AT_COUNTED("old.severity", "old.rule")
	"  OR " AT_COUNTED("new.severity", "new.rule") " BEGIN"
	AT_REDO("old.patch, new.patch")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_decided"
	" AFTER INSERT ON finding_decision BEGIN"
	AT_REDO("SELECT patch FROM finding WHERE id = new.finding")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_undecided"
	" AFTER DELETE ON finding_decision BEGIN"
	AT_REDO("SELECT patch FROM finding WHERE id = old.finding")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_patch_delete"
	" AFTER DELETE ON patch BEGIN"
	"  DELETE FROM attention WHERE patch = old.id;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_message_update"
	" AFTER UPDATE OF automated, date ON message"
	" WHEN (old.automated IS NULL) <> (new.automated IS NULL)"
	"  OR old.date IS NOT new.date BEGIN"
	AT_REDO(AT_PATCH_OF("new.id"))
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_list_insert"
	" AFTER INSERT ON message_list"
	" WHEN EXISTS (" AT_PATCH_OF("new.message") ") BEGIN"
	AT_REDO(AT_PATCH_OF("new.message"))
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_list_delete"
	" AFTER DELETE ON message_list"
	" WHEN EXISTS (" AT_PATCH_OF("old.message") ") BEGIN"
	AT_REDO(AT_PATCH_OF("old.message"))
	" END;"
	/* Every patch has a flood group, most of one member: only a
	 * detected flood's members change. */
	"CREATE TRIGGER IF NOT EXISTS attention_flood_member_insert"
	" AFTER INSERT ON flood_member WHEN " AT_DETECTED("new.grp") " BEGIN"
	AT_REDO(AT_PATCH_OF("new.message"))
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_flood_member_move"
	" AFTER UPDATE OF grp, message ON flood_member"
	" WHEN " AT_DETECTED("old.grp") " OR " AT_DETECTED("new.grp") " BEGIN"
	AT_REDO(AT_PATCH_OF("old.message") " UNION ALL "
		AT_PATCH_OF("new.message"))
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_flood_member_delete"
	" AFTER DELETE ON flood_member WHEN " AT_DETECTED("old.grp") " BEGIN"
	AT_REDO(AT_PATCH_OF("old.message"))
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_flood_detected"
	" AFTER UPDATE OF detected_at ON flood_group"
	" WHEN (old.detected_at IS NULL) <> (new.detected_at IS NULL) BEGIN"
	AT_REDO("SELECT p.id FROM flood_member fm JOIN patch p"
		" ON p.message = fm.message WHERE fm.grp = new.id")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_flood_delete"
	" AFTER DELETE ON flood_group WHEN old.detected_at IS NOT NULL BEGIN"
	AT_REDO("SELECT p.id FROM flood_member fm JOIN patch p"
		" ON p.message = fm.message WHERE fm.grp = old.id")
	" END;"
	"DELETE FROM attention;"
	"INSERT INTO attention " PW_ATTENTION_RECOUNT("true") ";",
	/*
	 * The first and last dates of each sender's patches per list (0
	 * every list, -1 none) and person or machine, for the senders
	 * page (db/totals.h, PW_TOTALS_RECOUNT_SENDER_DATES).  A patch
	 * stored or filed under one more list widens them; a change that
	 * can narrow them (a patch or message deleted, a list left, a
	 * message's From, date or kind of sender changed, an in-body
	 * author) marks its senders' rows stale and widens the rows the
	 * patch is in now, and the page reads a
	 * stale sender's dates from the indexed rows until "db check"
	 * counts them again.  Made from the rows: run again, it changes
	 * nothing.
	 */
	"CREATE TABLE IF NOT EXISTS total_sender_date ("
	"  list INTEGER NOT NULL,"
	"  who TEXT NOT NULL,"
	"  automated INTEGER NOT NULL,"
	"  first INTEGER,"		/* NULL: no dated patch */
	"  last INTEGER,"
	"  stale INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (list, who, automated)"
	") WITHOUT ROWID;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_patch"
	" AFTER INSERT ON patch BEGIN"
	TSD_WIDEN(TS_LISTS("new.message"), "new.message")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_list"
	" AFTER INSERT ON message_list"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = new.message) BEGIN"
	TSD_WIDEN("(SELECT new.list AS l)", "new.message")
	TSD_STALE(TSD_WHO("new.message"), " AND list = -1")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_unlist"
	" AFTER DELETE ON message_list"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = old.message) BEGIN"
	TSD_STALE(TSD_WHO("old.message"), "")
	TSD_WIDEN(TS_LISTS("old.message"), "old.message")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_patch_delete"
	" AFTER DELETE ON patch BEGIN"
	TSD_STALE(TSD_WHO("old.message"), "")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_message_delete"
	" BEFORE DELETE ON message"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = old.id) BEGIN"
	TSD_STALE(TSD_WHO("old.id"), "")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_message"
	" AFTER UPDATE OF from_addr, automated, date ON message"
	" WHEN (old.from_addr IS NOT new.from_addr"
	"  OR (old.automated IS NULL) <> (new.automated IS NULL)"
	"  OR old.date IS NOT new.date)"
	"  AND EXISTS (SELECT 1 FROM patch WHERE message = new.id) BEGIN"
	TSD_STALE(TSD_WHO("new.id") " UNION ALL SELECT old.from_addr", "")
	TSD_WIDEN(TS_LISTS("new.id"), "new.id")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_author"
	" AFTER INSERT ON message_sender"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = new.message) BEGIN"
	TSD_STALE(TSD_WHO("new.message") " UNION ALL SELECT from_addr"
		  " FROM message WHERE id = new.message", "")
	TSD_WIDEN(TS_LISTS("new.message"), "new.message")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_author_change"
	" AFTER UPDATE OF addr ON message_sender"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = new.message) BEGIN"
	TSD_STALE("SELECT old.addr UNION ALL SELECT new.addr", "")
	TSD_WIDEN(TS_LISTS("new.message"), "new.message")
	" END;"
	"CREATE TRIGGER IF NOT EXISTS total_sender_date_author_delete"
	" AFTER DELETE ON message_sender"
	" WHEN EXISTS (SELECT 1 FROM patch WHERE message = old.message) BEGIN"
	TSD_STALE("SELECT old.addr", "")
	TSD_WIDEN(TS_LISTS("old.message"), "old.message")
	" END;"
	"DELETE FROM total_sender_date;"
	"INSERT INTO total_sender_date " PW_TOTALS_RECOUNT_SENDER_DATES ";",
	/*
	 * Burst or campaign (db/FLOODS.md): a group of near-identical
	 * patches sent one by one at a reviewable pace is a campaign
	 * (a flood_campaign row, the Date of the patch that made it one;
	 * its members carry FLOOD_CAMPAIGN), a flood only when it comes
	 * in a burst or reaches [flood] lists subsystems, a member's the
	 * first folders of its diff (flood_area; none: no row).  Tables
	 * beside flood_group and flood_member, not columns, so that the
	 * migration can run again.  FLOOD_CAMPAIGN survives a recheck as
	 * the other flood findings.
	 */
	"CREATE TABLE IF NOT EXISTS flood_campaign ("
	"  grp INTEGER PRIMARY KEY,"
	"  campaign_at INTEGER NOT NULL"
	");"
	"CREATE TABLE IF NOT EXISTS flood_area ("
	"  message INTEGER PRIMARY KEY REFERENCES message(id) ON DELETE CASCADE,"
	"  area TEXT NOT NULL"
	");"
	"DROP TRIGGER IF EXISTS flood_findings_keep;"
	"CREATE TRIGGER flood_findings_keep BEFORE DELETE ON finding"
	"  WHEN old.rule IN ('FLOOD', 'FLOOD_SERIES', 'FLOOD_CAMPAIGN',"
	"   'RESEND_IDENTICAL', 'SERIES_OVERSIZED')"
	"   AND EXISTS (SELECT 1 FROM patch WHERE id = old.patch)"
	"  BEGIN SELECT RAISE(IGNORE); END;",
	/* The Message-ID of every signed command mail that was judged,
	 * obeyed or not: each is obeyed once, even after its decisions
	 * are undone (bot/mailcmd.c). */
	"CREATE TABLE IF NOT EXISTS mail_command ("
	"  msgid TEXT PRIMARY KEY,"
	"  at INTEGER NOT NULL"
	") WITHOUT ROWID;",
	/*
	 * A patch's life (db/lineage.c): lineage links the versions of
	 * one series (root: the lineage, the id of the first series of it
	 * found; supersedes: the version this one follows; how: what
	 * linked them, checks/lineage.h; change_id: b4's); patch_state
	 * says what became
	 * of a patch (no row: new); patch_pid holds each patch's
	 * "git patch-id --stable", which a maintainer's tree is matched
	 * against.  Only live patches (no state) are in the attention
	 * queue: a row for any other is never inserted, and a state
	 * given or taken away counts its patch again.
	 */
	"CREATE TABLE IF NOT EXISTS lineage ("
	"  series INTEGER PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE,"
	"  root INTEGER NOT NULL,"
	"  supersedes INTEGER,"
	"  how TEXT NOT NULL,"
	"  change_id TEXT"
	");"
	"CREATE INDEX IF NOT EXISTS lineage_root ON lineage(root);"
	"CREATE INDEX IF NOT EXISTS lineage_change_id ON lineage(change_id)"
	"  WHERE change_id IS NOT NULL;"
	/* The subjects of a series' cover letter and patches, as
	 * pw_lineage_subject_keys() makes them, per sender: a later
	 * version is found by any of them. */
	"CREATE TABLE IF NOT EXISTS lineage_key ("
	"  sender TEXT NOT NULL,"
	"  key TEXT NOT NULL,"
	"  series INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (sender, key, series)"
	") WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS lineage_key_series ON lineage_key(series);"
	/* A reply to a cover letter speaks of its series. */
	"CREATE INDEX IF NOT EXISTS series_cover ON series(cover);"
	"CREATE TABLE IF NOT EXISTS patch_state ("
	"  patch INTEGER PRIMARY KEY REFERENCES patch(id) ON DELETE CASCADE,"
	"  state TEXT NOT NULL CHECK (state = 'superseded' OR state = 'applied'"
	"   OR state = 'rejected'),"
	"  by_series INTEGER,"		/* superseded: the newer version */
	"  by_message INTEGER,"		/* the maintainer's reply */
	"  by_commit TEXT,"		/* applied: the tree's commit */
	"  at INTEGER NOT NULL"
	");"
	"CREATE TABLE IF NOT EXISTS patch_pid ("
	"  pid TEXT NOT NULL,"
	"  patch INTEGER NOT NULL REFERENCES patch(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (pid, patch)"
	") WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS patch_pid_patch ON patch_pid(patch);"
	"CREATE TRIGGER IF NOT EXISTS attention_live"
	" BEFORE INSERT ON attention"
	" WHEN EXISTS (SELECT 1 FROM patch_state WHERE patch = new.patch) BEGIN"
	"  SELECT RAISE(IGNORE);"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_state_insert"
	" AFTER INSERT ON patch_state BEGIN"
	"  DELETE FROM attention WHERE patch = new.patch;"
	" END;"
	"CREATE TRIGGER IF NOT EXISTS attention_state_delete"
	" AFTER DELETE ON patch_state BEGIN"
	AT_REDO("old.patch")
	" END;"
	"DELETE FROM attention WHERE patch IN (SELECT patch FROM patch_state);",
	/*
	 * Who sent a message (checks/identity.h, docs/security.md):
	 * dkim_signer, the addresses and the domains ("@" and the domain)
	 * seen with a valid DKIM signature of their From domain, so that
	 * later mail claiming them without one is known for a look-alike;
	 * message_auth, how the From of a message was authenticated (enum
	 * pw_auth), a row only for the messages judged other than
	 * PW_AUTH_NONE (live mail signed, or a look-alike); series_signed,
	 * below.  Tables, for
	 * the reason finding_line is one: the migration can run again.
	 */
	"CREATE TABLE IF NOT EXISTS dkim_signer ("
	"  who TEXT PRIMARY KEY,"
	"  first_seen INTEGER NOT NULL,"
	"  last_seen INTEGER NOT NULL,"
	"  messages INTEGER NOT NULL DEFAULT 1"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS message_auth ("
	"  message INTEGER PRIMARY KEY REFERENCES message(id) ON DELETE CASCADE,"
	"  auth INTEGER NOT NULL"
	");"
	/* The series that DKIM-signed mail started: only signed mail
	 * joins them (db/series.c). */
	"CREATE TABLE IF NOT EXISTS series_signed ("
	"  series INTEGER PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE"
	");",
	/*
	 * One voice per series version (db/voice.c): what each reply
	 * reported, keyed as a finding is recognised again on another
	 * version or copy (its author, named for how the mail was
	 * authenticated: pw_identity_flood_sender(), a bare address for
	 * unsigned mail; rule, file and added line); the
	 * series whose reply waits for the series to be whole; patch-ids
	 * looked up by message, to tell an identical copy of an answered
	 * patch.
	 */
	"CREATE TABLE IF NOT EXISTS reply_item ("
	"  outbox INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,"
	"  message INTEGER NOT NULL,"
	"  author TEXT NOT NULL,"
	"  rule TEXT NOT NULL,"
	"  file TEXT NOT NULL DEFAULT '',"
	"  added TEXT NOT NULL DEFAULT ''"
	");"
	"CREATE INDEX IF NOT EXISTS reply_item_key"
	"  ON reply_item(author, rule, file, added);"
	"CREATE INDEX IF NOT EXISTS reply_item_message ON reply_item(message);"
	"CREATE INDEX IF NOT EXISTS reply_item_outbox ON reply_item(outbox);"
	"CREATE TABLE IF NOT EXISTS reply_wait ("
	"  series INTEGER PRIMARY KEY REFERENCES series(id) ON DELETE CASCADE,"
	"  since INTEGER NOT NULL"
	");"
	"CREATE INDEX IF NOT EXISTS flood_patch_id_message"
	"  ON flood_patch_id(message);",
};

const char *const *pw_db_migrations(size_t *n)
{
	*n = sizeof(migrations) / sizeof(migrations[0]);
	return migrations;
}
