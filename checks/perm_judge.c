/*
 * patchwarden: judging one mode.  Implements PERM_MACRO_UNDEFINED,
 * PERM_WORLD_WRITABLE, PERM_INVERTED, PERM_SPECIAL_BITS, PERM_NOT_OCTAL,
 * SYSFS_MODE_CALLBACKS, DEVICE_ATTR_FORM, PERM_SYMBOLIC, PERM_STYLE and
 * PERM_UNCOMMON for a mode a scanner found.
 *
 * Reference: checkpatch.pl (SYMBOLIC_PERMS, NON_OCTAL_PERMISSIONS,
 * EXPORTED_WORLD_WRITABLE, DEVICE_ATTR_*) and the kernel's
 * VERIFY_OCTAL_PERMISSIONS.  Unlike checkpatch.pl, one mode gives at
 * most one finding: the most severe enabled rule reports it, and its
 * message names every problem of that mode, so one defect is never
 * reported twice in different words.
 */
#include <string.h>

#include "checks/perm.h"

struct prob {
	int rule;
	enum pw_severity sev;
	char *text;
	char *repl;		/* replacement text, or NULL */
	struct pw_span span;	/* what repl replaces */
	bool mode_only;		/* only reported when the mode line is added */
};

struct probs {
	struct prob p[12];
	int n;
};

static void add(struct probs *ps, struct pw_scan *sc, int rule,
		enum pw_severity sev, bool mode_only, char *text)
{
	struct prob *p;

	if (!sc->on[rule] || ps->n >= (int)G_N_ELEMENTS(ps->p)) {
		g_free(text);
		return;
	}
	p = &ps->p[ps->n++];
	memset(p, 0, sizeof(*p));
	p->rule = rule;
	p->sev = sev;
	p->text = text;
	p->mode_only = mode_only;
}

static void set_fix(struct probs *ps, int rule, char *repl, struct pw_span span)
{
	int i;

	for (i = ps->n - 1; i >= 0; i--)
		if (ps->p[i].rule == rule && !ps->p[i].repl) {
			ps->p[i].repl = repl;
			ps->p[i].span = span;
			return;
		}
	g_free(repl);
}

/* The text of a span with white space runs folded to one space. */
static char *squeeze(const char *s, size_t n)
{
	GString *o = g_string_sized_new(n);
	bool sp = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (g_ascii_isspace(s[i]) || s[i] == '\\') {
			sp = o->len > 0;
			continue;
		}
		if (sp)
			g_string_append_c(o, ' ');
		sp = false;
		g_string_append_c(o, s[i]);
	}
	return g_string_free(o, FALSE);
}

/*
 * s (taken) cut to at most QUOTE_MAX bytes on a character boundary,
 * "..." marking the cut: a finding quotes the mode as written, and a
 * mode expression from mail can be as long as a statement (a chain of
 * a thousand casts made a 19 KB finding); the fix carries it whole.
 */
#define QUOTE_MAX 120
static char *quoted(char *s)
{
	const char *end;
	char *q;

	if (strlen(s) <= QUOTE_MAX)
		return s;
	g_utf8_validate(s, QUOTE_MAX - 3, &end);
	q = g_strdup_printf("%.*s...", (int)(end - s), s);
	g_free(s);
	return q;
}

static bool exported(enum pw_ctx_kind k)
{
	return k == PW_CTX_SYSFS || k == PW_CTX_SYSFS_RT || k == PW_CTX_MODPARAM ||
	       k == PW_CTX_DEBUGFS || k == PW_CTX_PROCFS;
}

static bool verified(enum pw_ctx_kind k)
{
	return k == PW_CTX_SYSFS || k == PW_CTX_MODPARAM;
}

static const char *what(enum pw_ctx_kind k)
{
	switch (k) {
	case PW_CTX_SYSFS: return "this sysfs attribute";
	case PW_CTX_SYSFS_RT: return "this sysfs file";
	case PW_CTX_MODPARAM: return "this module parameter";
	case PW_CTX_DEBUGFS: return "this debugfs file";
	case PW_CTX_PROCFS: return "this procfs file";
	case PW_CTX_MEMBER: return "this mode field";
	default: return "the file";
	}
}

static bool in_set(unsigned v, const unsigned *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

static bool uncommon(const struct pw_occ *oc, unsigned v)
{
	static const unsigned attr[] = { 0444, 0644, 0200, 0400, 0600 };
	static const unsigned kern[] = { 0400, 0440, 0444, 0600, 0640, 0644,
					 0660, 0664, 0200, 0220, 0555, 0755 };
	static const unsigned user[] = { 0400, 0440, 0444, 0600, 0640, 0644,
					 0660, 0664, 0666, 0200, 0220, 0500,
					 0550, 0555, 0700, 0750, 0755, 0770,
					 0775, 0777, 01777, 02755, 04755 };
	static const unsigned mask[] = { 022, 02, 077, 027, 007, 0 };

	if (!v && oc->kind != PW_CTX_UMASK)
		return false;
	if (oc->kind == PW_CTX_UMASK)
		return !in_set(v, mask, G_N_ELEMENTS(mask));
	if (oc->form == 1)
		return !in_set(v, attr, G_N_ELEMENTS(attr));
	if (exported(oc->kind) || oc->kind == PW_CTX_MEMBER)
		return !in_set(v, kern, G_N_ELEMENTS(kern));
	return !in_set(v, user, G_N_ELEMENTS(user));
}

static bool is_null(const char *s, size_t n)
{
	char *t = squeeze(s, n);
	bool r = !strcmp(t, "NULL") || !strcmp(t, "0") || !*t;

	g_free(t);
	return r;
}

/* The span is name + suffix, also when pasted in a macro (_name##_show). */
static bool span_is(const char *san, struct pw_span sp, const char *name,
		    const char *suffix)
{
	char *t = squeeze(san + sp.s, sp.e - sp.s);
	char *want = g_strconcat(name, suffix, NULL);
	char *w = t;
	const char *q;
	bool r;

	/* Every "##" out, in one pass: of a run of '#', one stays when
	 * the run is odd, as if the first "##" were taken out again and
	 * again. */
	for (q = t; *q;) {
		if (q[0] == '#' && q[1] == '#') {
			q += 2;
			continue;
		}
		*w++ = *q++;
	}
	*w = '\0';
	r = !strcmp(t, want);

	g_free(t);
	g_free(want);
	return r;
}

static bool is_identifier(const char *s)
{
	if (!*s || g_ascii_isdigit(*s))
		return false;
	for (; *s; s++)
		if (!g_ascii_isalnum(*s) && *s != '_')
			return false;
	return true;
}

/*
 * The parameters of the function-like #define whose body holds offset
 * at of the text, or NULL when at is in none; sc keeps them (freed by
 * pw_perm_scan_reset()).  Modes are judged in the order of the text, so
 * each logical line is found and read once, however many modes it
 * holds: a macro of 10,000 attributes costs 10,000 lines, not 10,000
 * squared.
 */
static char *const *macro_params(struct pw_scan *sc, size_t at)
{
	size_t b = pw_text_logical_start(sc->t, at);

	if (!sc->macro_known || sc->macro_at != b) {
		g_strfreev(sc->macro_params);
		sc->macro_params = pw_perm_macro_at(sc->san, sc->t->len, b, NULL, NULL);
		sc->macro_at = b;
		sc->macro_known = true;
	}
	return sc->macro_params;
}

/* A name that is a macro parameter or pasted (a##b): not its own name. */
static bool not_own_name(const char *t, char *const *params)
{
	return strstr(t, "##") ||
	       (params && g_strv_contains((const char *const *)params, t));
}

/*
 * Whether the attribute's name or a callback given is a parameter of
 * the macro the call sits in, or token-pasted: then the _RO/_RW/_WO
 * form, which pastes name##_show itself, may not say the same.
 */
static bool in_macro(struct pw_scan *sc, const struct pw_occ *oc,
		     const char *name, bool show, bool store)
{
	char *const *params = macro_params(sc, oc->call.s);
	char *t;
	bool r = not_own_name(name, params);

	if (!r && show) {
		t = squeeze(sc->san + oc->show.s, oc->show.e - oc->show.s);
		r = not_own_name(t, params);
		g_free(t);
	}
	if (!r && store) {
		t = squeeze(sc->san + oc->store.s, oc->store.e - oc->store.s);
		r = not_own_name(t, params);
		g_free(t);
	}
	return r;
}

static bool ident_byte(char c)
{
	return g_ascii_isalnum(c) || c == '_';
}

/*
 * Counts, once per text, every identifier that stands alone as a call
 * or macro argument after the first (", name," or ", name)"), in one
 * pass over the sanitized text.
 */
static void build_arg_uses(struct pw_scan *sc)
{
	const char *s = sc->san;
	size_t len = sc->t->len, i = 0, b, e, k;

	sc->arg_uses = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	while (i < len) {
		const char *c = memchr(s + i, ',', len - i);

		if (!c)
			break;
		b = (size_t)(c - s) + 1;
		while (b < len && g_ascii_isspace(s[b]))
			b++;
		for (e = b; e < len && ident_byte(s[e]); e++)
			;
		i = b > (size_t)(c - s) + 1 ? b : (size_t)(c - s) + 1;
		if (e == b || g_ascii_isdigit(s[b]))
			continue;
		for (k = e; k < len && g_ascii_isspace(s[k]); k++)
			;
		if (k < len && (s[k] == ',' || s[k] == ')')) {
			char *key = g_strndup(s + b, e - b);
			gpointer n = g_hash_table_lookup(sc->arg_uses, key);

			g_hash_table_replace(sc->arg_uses, key,
					     GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
		}
		i = e;
	}
}

/*
 * Whether the callback in span sp is given to more than one attribute
 * (or call) of the text: then no one attribute's name can be its name,
 * and DEVICE_ATTR_RW(name) would need a copy of it per attribute.
 */
static bool shared_callback(struct pw_scan *sc, struct pw_span sp)
{
	char *t = squeeze(sc->san + sp.s, sp.e - sp.s);
	bool r;

	if (!sc->arg_uses)
		build_arg_uses(sc);
	r = GPOINTER_TO_UINT(g_hash_table_lookup(sc->arg_uses, t)) > 1;
	g_free(t);
	return r;
}

/* The mode spelled as the house style wants it. */
static char *house_spelling(struct pw_scan *sc, const struct pw_occ *oc,
			    unsigned v)
{
	char *p;

	if (oc->lang == PW_MODE_PYTHON)
		return g_strdup_printf("0o%o", v & 07777);
	if (sc->style == PW_STYLE_SYMBOLIC)
		return pw_mode_spell_symbolic(v);
	if (sc->style == PW_STYLE_PERM_MACROS && (p = pw_mode_spell_perm(v)))
		return p;
	return pw_mode_spell_octal(v);
}

/*
 * The mode whose bits agree with the callbacks: no write bit without a
 * store, no read bit without a show, the owner's bit (the least one
 * can grant) for a callback the mode forbids.  0 when no mode agrees.
 */
static unsigned agreeing_mode(unsigned v, bool show, bool store)
{
	v &= 0777;
	if (!store)
		v &= ~0222u;
	if (!show)
		v &= ~0444u;
	if (store && !(v & 0222))
		v |= 0200;
	if (show && !(v & 0444))
		v |= 0400;
	return v;
}

/*
 * SYSFS_MODE_CALLBACKS into ps; DEVICE_ATTR_FORM into form, a finding
 * of its own: advice on how the attribute is written, which a list may
 * switch off without losing what is wrong with the mode.  value_problem
 * says that a value rule already reports the mode.
 */
static void callbacks(struct probs *ps, struct probs *form, struct pw_scan *sc,
		      const struct pw_occ *oc, unsigned v, bool value_problem)
{
	struct form {
		unsigned mode;
		bool show, store;
		const char *dev, *attr;
	};
	static const struct form forms[] = {
		{ 0644, true, true, "DEVICE_ATTR_RW", "__ATTR_RW" },
		{ 0444, true, false, "DEVICE_ATTR_RO", "__ATTR_RO" },
		{ 0200, false, true, "DEVICE_ATTR_WO", "__ATTR_WO" },
		{ 0600, true, true, "DEVICE_ATTR_ADMIN_RW", NULL },
		{ 0400, true, false, "DEVICE_ATTR_ADMIN_RO", NULL },
	};
	const char *san = sc->san;
	bool show = !is_null(san + oc->show.s, oc->show.e - oc->show.s);
	bool store = !is_null(san + oc->store.s, oc->store.e - oc->store.s);
	GString *t = g_string_new(NULL);
	char *name;
	size_t i;

	if ((v & 0222) && !store)
		g_string_append(t, "writable, but there is no store callback, so every write fails");
	/*
	 * A callback the mode forbids is dead code unless the file grants
	 * the bit at run time, as hwmon drivers do through is_visible or
	 * sysfs_chmod_file; then it is the usual pattern, not a defect.
	 */
	if (!(v & 0222) && store && !oc->runtime_modes)
		g_string_append_printf(t, "%snobody may write, so the store callback is never called",
				       t->len ? "; " : "");
	if ((v & 0444) && !show)
		g_string_append_printf(t, "%sreadable, but there is no show callback, so every read fails",
				       t->len ? "; " : "");
	if (!(v & 0444) && show && !oc->runtime_modes)
		g_string_append_printf(t, "%snobody may read, so the show callback is never called",
				       t->len ? "; " : "");
	if (t->len) {
		unsigned fixed = agreeing_mode(v, show, store);

		add(ps, sc, PW_R_SYSFS_MODE_CALLBACKS, PW_SEV_WARNING, false,
		    g_string_free(t, FALSE));
		/* The fix is the mode that agrees, never the same bits
		 * spelt anew: that would carry the fault it names. */
		if (fixed && fixed != (v & 0777))
			set_fix(ps, PW_R_SYSFS_MODE_CALLBACKS,
				house_spelling(sc, oc, fixed), oc->mode);
		return;
	}
	g_string_free(t, TRUE);
	if (!oc->form)
		return;
	name = squeeze(san + oc->name.s, oc->name.e - oc->name.s);
	if (!is_identifier(name))
		goto out;
	/*
	 * checkpatch.pl's DEVICE_ATTR_PERMS: a DEVICE_ATTR() mode no short
	 * form has (0664, 0220, ...), unless a value rule already says
	 * what is wrong with it.
	 */
	if (oc->form == 1 && !value_problem) {
		for (i = 0; i < G_N_ELEMENTS(forms); i++)
			if (forms[i].mode == v)
				break;
		if (i == G_N_ELEMENTS(forms)) {
			add(form, sc, PW_R_DEVICE_ATTR_FORM, PW_SEV_WARNING, false,
			    g_strdup("an unusual mode for a sysfs attribute: no DEVICE_ATTR_ form has it "
				     "(_RW 0644, _RO 0444, _WO 0200, _ADMIN_RW 0600, _ADMIN_RO 0400)"));
			goto out;
		}
	}
	if (in_macro(sc, oc, name, show, store))
		goto out;
	for (i = 0; i < G_N_ELEMENTS(forms); i++) {
		const struct form *f = &forms[i];
		const char *macro = oc->form == 1 ? f->dev : f->attr;
		bool show_ok, store_ok;

		if (f->mode != v || !macro)
			continue;
		show_ok = !f->show || span_is(san, oc->show, name, "_show");
		store_ok = !f->store || span_is(san, oc->store, name, "_store");
		/*
		 * As checkpatch.pl, suggest renaming only a callback that
		 * can take this attribute's name: not one shared with
		 * other attributes (mac_address_show for mac_address_0
		 * to _7), which the short form cannot express.
		 */
		if ((!show_ok && shared_callback(sc, oc->show)) ||
		    (!store_ok && shared_callback(sc, oc->store)))
			break;
		if (show_ok && store_ok) {
			add(form, sc, PW_R_DEVICE_ATTR_FORM, PW_SEV_WARNING, false,
			    g_strdup_printf("%s(%s) says the same in fewer words", macro, name));
			set_fix(form, PW_R_DEVICE_ATTR_FORM,
				g_strdup_printf("%s(%s)", macro, name), oc->call);
		} else {
			/* Only the callbacks whose names differ. */
			add(form, sc, PW_R_DEVICE_ATTR_FORM, PW_SEV_WARNING, false,
			    g_strdup_printf("%s(%s) would say the same if %s named %s%s%s%s%s",
					    macro, name,
					    !show_ok && !store_ok ? "the callbacks were" :
					    !show_ok ? "the show callback were" :
					    "the store callback were",
					    !show_ok ? name : "", !show_ok ? "_show" : "",
					    !show_ok && !store_ok ? " and " : "",
					    !store_ok ? name : "", !store_ok ? "_store" : ""));
		}
		break;
	}
out:
	g_free(name);
}

/*
 * Whether a decimal mode means its value, not its digits read as
 * octal: one digit (1 to 7 are the same in both), or the decimal
 * spelling of a usual mode (420 is 0644, 493 is 0755, as Python code
 * and stat output write them) whose digits make no usual mode.
 */
static bool decimal_as_written(const struct pw_mode *m)
{
	static const unsigned usual[] = { 0200, 0220, 0400, 0440, 0444, 0555,
					  0600, 0640, 0644, 0660, 0664, 0666,
					  0700, 0750, 0755, 0770, 0775, 0777 };

	if (!(m->flags & PW_MODE_DECIMAL))
		return false;
	if (m->value < 8)
		return true;
	return in_set(m->value, usual, G_N_ELEMENTS(usual)) &&
	       !(m->meant_valid && in_set(m->meant, usual, G_N_ELEMENTS(usual)));
}

static void value_rules(struct probs *ps, struct pw_scan *sc,
			const struct pw_occ *oc, const struct pw_mode *m,
			const char *written)
{
	unsigned v = m->value, perm = v & 07777;
	enum pw_ctx_kind k = oc->kind;
	enum pw_severity ksev = exported(k) ? PW_SEV_ERROR : PW_SEV_WARNING;
	bool ww_told = false;

	if (k == PW_CTX_VALUE)
		return;
	if (k == PW_CTX_UMASK) {
		if (!(perm & 02))
			add(ps, sc, PW_R_PERM_WORLD_WRITABLE, PW_SEV_WARNING, true,
			    g_strdup_printf("umask %04o lets others write every file created afterwards",
					    perm));
		return;
	}
	if ((perm & 02) && k != PW_CTX_CREATE) {
		add(ps, sc, PW_R_PERM_WORLD_WRITABLE, ksev, true,
		    g_strdup_printf("others can write to %s%s%s", what(k),
				    (!oc->relative && !(perm & 0200)) ?
				    ", the owner cannot" : "",
				    k == PW_CTX_DEBUGFS ? " (harmless only while debugfs stays mounted for root alone)" :
				    exported(k) ? " (an interface every user can reach)" : ""));
		ww_told = true;
	}
	if (!oc->relative) {
		GString *t = g_string_new(NULL);

		if ((perm & 040) && !(perm & 0400))
			g_string_append(t, "the group can read, the owner cannot");
		if ((perm & 04) && !(perm & 040))
			g_string_append_printf(t, "%sothers can read, the group cannot",
					       t->len ? ", " : "");
		if ((perm & 020) && !(perm & 0200))
			g_string_append_printf(t, "%sthe group can write, the owner cannot",
					       t->len ? ", " : "");
		if ((perm & 02) && !(perm & 0200) && !ww_told)
			g_string_append_printf(t, "%sothers can write, the owner cannot",
					       t->len ? ", " : "");
		if (verified(k) && ((perm & 02) || t->len))
			g_string_append_printf(t, "%sVERIFY_OCTAL_PERMISSIONS rejects this mode: it does not build",
					       t->len ? "; " : "");
		if (t->len)
			add(ps, sc, PW_R_PERM_INVERTED,
			    verified(k) ? PW_SEV_ERROR : PW_SEV_WARNING, true,
			    g_string_free(t, FALSE));
		else
			g_string_free(t, TRUE);
	}
	if (perm & 07000) {
		GString *b = g_string_new(NULL);

		const char *names[3];
		int nb = 0, i;

		if (perm & 04000)
			names[nb++] = "setuid";
		if (perm & 02000)
			names[nb++] = "setgid";
		if (perm & 01000)
			names[nb++] = "sticky";
		for (i = 0; i < nb; i++)
			g_string_append_printf(b, "%s%s", i == 0 ? "" :
					       i == nb - 1 ? " and " : ", ", names[i]);
		if (exported(k) || k == PW_CTX_MEMBER) {
			bool five = (m->flags & PW_MODE_OCTAL) && m->single &&
				    strlen(written) == 5;

			add(ps, sc, PW_R_PERM_SPECIAL_BITS, ksev, true,
			    g_strdup_printf("the %s bit%s mean%s nothing on %s%s%s",
					    b->str, strchr(b->str, ' ') ? "s" : "",
					    strchr(b->str, ' ') ? "" : "s", what(k),
					    verified(k) ? " and VERIFY_OCTAL_PERMISSIONS rejects it" : "",
					    five ? "; a 4-digit mode was surely meant" : ""));
			if (!oc->relative && !(m->flags & PW_MODE_UNKNOWN) &&
			    !((m->flags & PW_MODE_HEX) && m->meant_valid))
				set_fix(ps, PW_R_PERM_SPECIAL_BITS,
					house_spelling(sc, oc, v & ~07000u), oc->mode);
		} else if (perm & 06000) {
			add(ps, sc, PW_R_PERM_SPECIAL_BITS, PW_SEV_WARNING, true,
			    g_strdup_printf("%s: whoever runs the file gets its %s's rights",
					    b->str, (perm & 04000) ? "owner" : "group"));
		}
		g_string_free(b, TRUE);
	}
	if ((m->flags & PW_MODE_HEX) && m->meant_valid) {
		char *meant = pw_mode_spell_octal(m->meant);

		/*
		 * 0x00444 is 02104, but nobody writes a mode in hex with
		 * only the digits 0-7: the octal 0444 was meant, and the
		 * fix is that, not the hex value's bits tidied up.
		 */
		add(ps, sc, PW_R_PERM_NOT_OCTAL, ksev, true,
		    g_strdup_printf("%s is hex, but its digits are all octal digits: %s was surely meant",
				    written, meant));
		set_fix(ps, PW_R_PERM_NOT_OCTAL, house_spelling(sc, oc, m->meant),
			oc->mode);
		g_free(meant);
	} else if ((m->flags & (PW_MODE_HEX | PW_MODE_WIDTH)) ||
		   decimal_as_written(m)) {
		char *oct = pw_mode_spell_octal(v);

		add(ps, sc, PW_R_PERM_NOT_OCTAL, ksev, true,
		    (m->flags & PW_MODE_HEX) ?
		    g_strdup_printf("%s is hex; modes read best in octal: %s", written, oct) :
		    (m->flags & PW_MODE_DECIMAL) && v < 8 ?
		    g_strdup_printf("%s means the same in decimal and octal, but is not a 4-digit octal mode: %s",
				    written, oct) :
		    (m->flags & PW_MODE_DECIMAL) ?
		    g_strdup_printf("%s is the decimal spelling of %s; modes read best in octal",
				    written, oct) :
		    g_strdup_printf("%s is not a 4-digit octal mode: %s", written, oct));
		set_fix(ps, PW_R_PERM_NOT_OCTAL, house_spelling(sc, oc, v), oc->mode);
		g_free(oct);
	}
	if (m->flags & PW_MODE_PY2_OCTAL) {
		add(ps, sc, PW_R_PERM_NOT_OCTAL, PW_SEV_ERROR, true,
		    g_strdup_printf("%s is Python 2 octal and a syntax error in Python 3: 0o%o",
				    written, perm));
		set_fix(ps, PW_R_PERM_NOT_OCTAL, g_strdup_printf("0o%o", perm), oc->mode);
	}
}

static void style_rules(struct probs *ps, struct pw_scan *sc,
			const struct pw_occ *oc, const struct pw_mode *m)
{
	unsigned v = m->value;
	bool known = !(m->flags & PW_MODE_UNKNOWN);

	if (!oc->c || !v)
		return;
	switch (sc->style) {
	case PW_STYLE_OCTAL:
		if (!(m->flags & (PW_MODE_SYMBOLIC | PW_MODE_PERM)))
			return;
		add(ps, sc, PW_R_PERM_SYMBOLIC, PW_SEV_WARNING, true,
		    known ? g_strdup("this list writes modes in octal") :
		    g_strdup("this list writes modes in octal, not with S_I* names"));
		if (known)
			set_fix(ps, PW_R_PERM_SYMBOLIC, pw_mode_spell_octal(v), oc->mode);
		return;
	case PW_STYLE_SYMBOLIC:
		if (!known || oc->kind == PW_CTX_VALUE ||
		    !(m->flags & (PW_MODE_OCTAL | PW_MODE_HEX | PW_MODE_PERM)))
			return;
		add(ps, sc, PW_R_PERM_STYLE, PW_SEV_WARNING, true,
		    g_strdup("this list writes modes with S_I* names"));
		set_fix(ps, PW_R_PERM_STYLE, pw_mode_spell_symbolic(v), oc->mode);
		return;
	case PW_STYLE_PERM_MACROS: {
		char *p;

		if (!known || !(m->flags & (PW_MODE_OCTAL | PW_MODE_HEX | PW_MODE_SYMBOLIC)) ||
		    (oc->kind == PW_CTX_VALUE && !(m->flags & PW_MODE_SYMBOLIC)))
			return;
		p = pw_mode_spell_perm(v);
		if (!p)
			return;
		add(ps, sc, PW_R_PERM_STYLE, PW_SEV_WARNING, true,
		    g_strdup_printf("this list writes modes with PERM_ names: %s", p));
		set_fix(ps, PW_R_PERM_STYLE, p, oc->mode);
		return;
	}
	}
}

/* Whether a rule about the mode's value (not its spelling) is in ps. */
static bool value_problem(const struct probs *ps)
{
	int i;

	for (i = 0; i < ps->n; i++)
		if (ps->p[i].rule != PW_R_PERM_SYMBOLIC &&
		    ps->p[i].rule != PW_R_PERM_STYLE &&
		    ps->p[i].rule != PW_R_PERM_UNCOMMON)
			return true;
	return false;
}

static int pick(const struct probs *ps, bool mode_added)
{
	int i, best = -1;

	for (i = 0; i < ps->n; i++) {
		if (ps->p[i].mode_only && !mode_added)
			continue;
		if (best < 0 || ps->p[i].sev > ps->p[best].sev)
			best = i;
	}
	return best;
}

/* The first added line among the spans, for findings off the mode line. */
static size_t first_added(struct pw_scan *sc, const struct pw_occ *oc)
{
	const struct pw_span *sp[] = { &oc->mode, &oc->name, &oc->show, &oc->store };
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(sp); i++)
		if (sp[i]->e > sp[i]->s && pw_text_added(sc->t, sp[i]->s, sp[i]->e - 1))
			return sp[i]->s;
	return oc->mode.s;
}

/* Sets f's fix: repl for span sp, when sp lies on one added line. */
static void fix_span(struct pw_scan *sc, struct pw_finding *f,
		     struct pw_span sp, const char *repl)
{
	struct pw_loc a, b;
	GString *line;

	pw_text_locate(sc->t, sp.s, &a);
	pw_text_locate(sc->t, sp.e, &b);
	if (a.idx != b.idx || !a.added)
		return;
	line = g_string_new_len(sc->t->buf + a.start, (gssize)a.len);
	f->fix_from = sp.s - a.start;
	f->fix_to = sp.e - a.start;
	f->replacement = g_strdup(repl);
	g_string_erase(line, (gssize)f->fix_from, (gssize)(f->fix_to - f->fix_from));
	g_string_insert(line, (gssize)f->fix_from, f->replacement);
	f->fix = g_string_free(line, FALSE);
}

/*
 * PERM_SYMBOLIC for a mode the program decides ("S_IRUGO | (w ?
 * S_IWUSR : 0)"): the whole expression, the values it can take (or
 * what it depends on), and its octal spelling.  No other rule judges
 * such a mode: its value is not one number.
 */
static void judge_cond(struct pw_scan *sc, const struct pw_occ *oc,
		       const char *written)
{
	const struct pw_mode_cond *c = oc->cond;
	char *depends, *octal;
	GString *msg;
	struct pw_finding *f;
	int i;

	if (!oc->c || sc->style != PW_STYLE_OCTAL || !sc->on[PW_R_PERM_SYMBOLIC] ||
	    !(c->flags & (PW_MODE_SYMBOLIC | PW_MODE_PERM)))
		return;
	msg = g_string_new(written);
	g_string_append(msg, c->vars ? ": adds " : ": ");
	for (i = 0; i < c->nvals; i++) {
		char *d = pw_mode_describe(c->vals[i]);

		g_string_append_printf(msg, "%s%s", i == 0 ? "" :
				       i == c->nvals - 1 ? " or " : ", ", d);
		g_free(d);
	}
	depends = quoted(g_strdup(c->depends));
	octal = quoted(g_strdup(c->octal));
	g_string_append_printf(msg, c->vars ? " to %s" : ", depending on %s",
			       depends);
	g_string_append_printf(msg, ": this list writes modes in octal; write %s",
			       octal);
	g_free(depends);
	g_free(octal);
	f = pw_perm_emit(sc, PW_R_PERM_SYMBOLIC, -1, oc->mode.s,
			 g_string_free(msg, FALSE));
	if (f)
		fix_span(sc, f, oc->mode, c->octal);
}

/*
 * One finding for the problems in ps, reported by the most severe: its
 * text, then the others', then the winner's own fix.  Only its own: the
 * octal spelling of a world-writable mode would carry the fault the
 * finding names (the head already shows the octal value).
 */
static void report(struct pw_scan *sc, const struct pw_occ *oc,
		   const struct pw_mode *m, const char *written,
		   const struct probs *ps, bool mode_added)
{
	struct pw_finding *f;
	char *head;
	GString *msg;
	int i, w, fixer = -1;
	size_t at;

	w = pick(ps, mode_added);
	if (w < 0)
		return;
	if (ps->p[w].repl)
		fixer = w;

	if ((m->flags & PW_MODE_UNKNOWN) ||
	    ((m->flags & PW_MODE_DECIMAL) && !decimal_as_written(m))) {
		head = g_strdup(written);
	} else if (oc->relative) {
		char ls[10];

		pw_mode_ls(m->value, ls);
		head = g_strdup_printf("%s (adds %s)", written, ls);
	} else {
		char *d = pw_mode_describe(m->value);
		char *oct = g_strdup_printf((m->value & 07000) ? "%05o" : "%04o",
					    m->value & 07777);

		head = strcmp(written, oct) ? g_strdup_printf("%s = %s", written, d) :
					     g_strdup(d);
		g_free(d);
		g_free(oct);
	}
	msg = g_string_new(head);
	g_free(head);
	g_string_append(msg, ": ");
	g_string_append(msg, ps->p[w].text);
	for (i = 0; i < ps->n; i++)
		if (i != w && (mode_added || !ps->p[i].mode_only))
			g_string_append_printf(msg, "; %s", ps->p[i].text);
	if (fixer >= 0 && ps->p[fixer].rule != PW_R_DEVICE_ATTR_FORM)
		g_string_append_printf(msg, "; write %s", ps->p[fixer].repl);
	at = mode_added ? oc->mode.s : first_added(sc, oc);
	f = pw_perm_emit(sc, ps->p[w].rule, (int)ps->p[w].sev, at,
			 g_string_free(msg, FALSE));
	if (f && fixer >= 0)
		fix_span(sc, f, ps->p[fixer].span, ps->p[fixer].repl);
}

static void probs_release(struct probs *ps)
{
	int i;

	for (i = 0; i < ps->n; i++) {
		g_free(ps->p[i].text);
		g_free(ps->p[i].repl);
	}
	ps->n = 0;
}

void pw_perm_judge(struct pw_scan *sc, const struct pw_occ *oc,
		   const struct pw_mode *m)
{
	struct probs ps, form;
	bool mode_added, any_added;
	char *written;

	mode_added = pw_text_added(sc->t, oc->mode.s, oc->mode.e - 1);
	any_added = mode_added;
	if (!any_added && oc->callbacks)
		any_added = pw_text_added(sc->t, oc->show.s, oc->store.e - 1) ||
			    pw_text_added(sc->t, oc->name.s, oc->name.e - 1);
	if (!any_added)
		return;
	ps.n = 0;
	form.n = 0;
	written = quoted(squeeze(sc->san + oc->mode.s, oc->mode.e - oc->mode.s));
	if (oc->cond) {
		if (mode_added)
			judge_cond(sc, oc, written);
		goto out;
	}
	if (sc->style == PW_STYLE_PERM_MACROS && (m->flags & PW_MODE_PERM_UNDEF)) {
		unsigned v;
		bool def;

		if (pw_mode_perm_decode(m->undef, m->undef_len, &v, &def)) {
			add(&ps, sc, PW_R_PERM_MACRO_UNDEFINED, PW_SEV_ERROR, true,
			    g_strdup_printf("%.*s is not one of the defined PERM_ names",
					    (int)m->undef_len, m->undef));
		} else {
			add(&ps, sc, PW_R_PERM_MACRO_UNDEFINED, PW_SEV_ERROR, true,
			    g_strdup_printf("%.*s is not one of the defined PERM_ names, nor an rwx pattern",
					    (int)m->undef_len, m->undef));
		}
	}
	/*
	 * A decimal of one digit, 1 to 7, is the same number in octal,
	 * and 420 is 0644 spelt in decimal: no misread mode, only an
	 * unusual spelling, so the value rules judge it as written.
	 */
	if ((m->flags & PW_MODE_DECIMAL) && !(m->flags & PW_MODE_UNKNOWN) &&
	    !decimal_as_written(m)) {
		if (oc->kind == PW_CTX_VALUE || oc->kind == PW_CTX_MEMBER)
			goto done;
		if (m->meant_valid) {
			char *actual = pw_mode_describe(m->value);
			char *meant = pw_mode_describe(m->meant);

			add(&ps, sc, PW_R_PERM_NOT_OCTAL, PW_SEV_ERROR, true,
			    g_strdup_printf("decimal, so the mode is %s, not %s", actual, meant));
			set_fix(&ps, PW_R_PERM_NOT_OCTAL, house_spelling(sc, oc, m->meant),
				oc->mode);
			g_free(actual);
			g_free(meant);
		} else {
			add(&ps, sc, PW_R_PERM_NOT_OCTAL, PW_SEV_ERROR, true,
			    g_strdup("a decimal number in a mode, which is read as octal bits"));
		}
		goto done;
	}
	if (!(m->flags & PW_MODE_UNKNOWN)) {
		value_rules(&ps, sc, oc, m, written);
		if (oc->callbacks && !oc->relative)
			callbacks(&ps, &form, sc, oc, m->value & 07777,
				  value_problem(&ps));
	}
	style_rules(&ps, sc, oc, m);
	/* DEVICE_ATTR_FORM's unusual mode already says it. */
	if (sc->on[PW_R_PERM_UNCOMMON] && !(m->flags & PW_MODE_UNKNOWN) && !form.n &&
	    !oc->relative && oc->kind != PW_CTX_VALUE && uncommon(oc, m->value & 07777))
		add(&ps, sc, PW_R_PERM_UNCOMMON, PW_SEV_INFO, true,
		    g_strdup_printf("an uncommon mode for %s", what(oc->kind)));
done:
	report(sc, oc, m, written, &ps, mode_added);
	report(sc, oc, m, written, &form, mode_added);
out:
	probs_release(&ps);
	probs_release(&form);
	g_free(written);
}
