/*
 * patchwarden: the decisions of flood grouping, without the store (see
 * checks/flood.h and db/FLOODS.md).
 */
#include <glib.h>

#include "checks/flood.h"

int64_t pw_flood_key(int kind, const char *sender, const char *digest)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const unsigned char *p;

	h = (h ^ (unsigned)(kind + 1)) * 0x100000001b3ull;
	for (p = (const unsigned char *)sender; *p; p++)
		h = (h ^ (unsigned char)g_ascii_tolower(*p)) * 0x100000001b3ull;
	h = (h ^ 0) * 0x100000001b3ull;
	for (p = (const unsigned char *)digest; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return (int64_t)h;
}

void pw_flood_group_init(struct pw_flood_group *g, int64_t founder,
			 bool threaded, int claimed, int64_t date)
{
	*g = (struct pw_flood_group){ 0 };
	g->founder = founder;
	g->size = 1;
	g->nthreaded = threaded;
	g->claimed = claimed;
	g->first = g->last = date;
	g->rank = -1;
}

void pw_flood_group_add(struct pw_flood_group *g, bool threaded, int claimed,
			unsigned matched, int64_t date)
{
	g->size++;
	g->nthreaded += threaded;
	g->claimed = MAX(g->claimed, claimed);
	g->shared |= matched;
	g->first = MIN(g->first, date);
	g->last = MAX(g->last, date);
}

bool pw_flood_group_merge(struct pw_flood_group *a,
			  const struct pw_flood_group *b)
{
	a->size += b->size;
	a->nthreaded += b->nthreaded;
	a->claimed = MAX(a->claimed, b->claimed);
	a->shared |= b->shared;
	a->first = MIN(a->first, b->first);
	a->last = MAX(a->last, b->last);
	if (b->reported_at && (!a->reported_at || b->reported_at < a->reported_at))
		a->reported_at = b->reported_at;
	if (b->campaign_at && (!a->campaign_at || b->campaign_at < a->campaign_at))
		a->campaign_at = b->campaign_at;
	if (a->detected)
		a->campaign_at = 0;
	if (!b->detected)
		return false;
	/* Both are floods (a group is chosen as target when it is one). */
	a->ncovered += b->ncovered;
	a->rank = MAX(a->rank, b->rank);
	a->detected_at = MIN(a->detected_at, b->detected_at);
	return true;
}

bool pw_flood_group_raise(struct pw_flood_group *g)
{
	int r = pw_flood_rank(g->size, g->nthreaded, g->ncovered);
	bool rose;

	if (r < g->rank)
		r = g->rank;
	rose = g->rank >= 0 && r != g->rank;
	g->rank = r;
	return rose;
}

enum pw_flood_rank pw_flood_rank_clamp(int rank)
{
	return rank <= PW_FLOOD_RANK_SERIES ? PW_FLOOD_RANK_SERIES :
	       rank >= PW_FLOOD_RANK_SEPARATE ? PW_FLOOD_RANK_SEPARATE :
	       (enum pw_flood_rank)rank;
}

bool pw_flood_group_better(const struct pw_flood_group *cand,
			   const struct pw_flood_group *best)
{
	if (cand->detected != best->detected)
		return cand->detected;
	if (cand->detected)
		return cand->id < best->id;
	return cand->size > best->size ||
	       (cand->size == best->size && cand->id < best->id);
}

void pw_flood_found_add(struct pw_flood_found *f, int64_t grp, unsigned bit)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->grps[i] == grp) {
			f->bits[i] |= bit;
			return;
		}
	f->grps[f->n] = grp;
	f->bits[f->n++] = bit;
}

bool pw_flood_group_may_flood(const struct pw_flood_group *g, int count)
{
	return !g->detected && g->size >= count;
}

bool pw_flood_group_promote(struct pw_flood_group *g, int n, int count,
			    int64_t date)
{
	if (g->detected || n < count)
		return false;
	g->detected = true;
	g->detected_at = date;
	g->ncovered = 0;
	return true;
}

int64_t pw_flood_bucket(int64_t date)
{
	return date >= 0 ? date / PW_FLOOD_BUCKET :
		-((-date + PW_FLOOD_BUCKET - 1) / PW_FLOOD_BUCKET);
}
