/*
 * patchwarden: findings as SARIF 2.1.0 (the Static Analysis Results
 * Interchange Format), what "check --format sarif" prints: the rule
 * table as the tool's rules, each finding a result, its fix a SARIF fix.
 */
#ifndef PW_SARIF_H
#define PW_SARIF_H

#include <stdio.h>
#include <glib.h>

/*
 * Prints one SARIF log with one run to out: the rules, then as results
 * the findings of every list of lists (each a GPtrArray of struct
 * pw_finding *, borrowed), in order.
 */
void pw_sarif_print(FILE *out, const GPtrArray *lists);

#endif
