/*
 * html_assets.h - the files the HTML report pastes into its page
 * (src/output/html/: model.js, ui.js, style.css), compiled into the tool
 * by tools/embed.c at build time, so the page needs nothing beside the
 * binary.  Editing one of them and running `make` is enough.
 */
#ifndef CCPROF_OUTPUT_HTML_ASSETS_H
#define CCPROF_OUTPUT_HTML_ASSETS_H

#include <stddef.h>

struct html_asset {
	const char *name; /* base name: "model.js" */
	const char *data; /* len bytes, then a NUL */
	size_t len;
	/* "sha256-…" of the element's text ("\n" and data), for the page's
	 * Content-Security-Policy */
	const char *csp_hash;
};

/* Ends with an entry whose name is NULL. */
extern const struct html_asset html_assets[];

#endif
