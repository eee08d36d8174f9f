#!/bin/bash
# Structure checked in the build, not in review (Linux's and flux-core's
# habit): reads the defined and undefined symbols of the objects with nm
# and fails, naming the file and the symbol, where
#  - a file of ctld/core uses a symbol of a file in a higher layer of the
#    table at the top of ctld/core/core.h, or two files use each other;
#  - a folder uses a folder DESIGN.md's arrows do not allow (below), in
#    its objects' symbols or in its #include lines.
# Prints the core's counts: file-to-file references, mutual pairs, and
# references that run upward.  TAP, for make check.
set -u
: "${top_srcdir:?run through make check}" "${top_builddir:?}"
NM=${NM:-nm}
# LTO objects hold no symbols for a plain nm without the plugin
command -v gcc-nm >/dev/null && NM=gcc-nm

n=0 failed=0
ok() { # COND TEXT
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# "kind file symbol" lines of the objects of FOLDER, each object named by
# its source (a target's prefix, "rota_ctld-", dropped) and FOLDER
symbols() { # FOLDER OBJECT...
	local folder=$1 o name
	shift
	for o in "$@"; do
		[ -f "$o" ] || continue
		name=${o##*/}
		name=${name%.o}
		name=${name##*-}
		"$NM" "$o" 2>/dev/null | awk -v f="$folder/$name" '
			$1 == "U" { print "U", f, $2; next }
			NF == 3 && $2 ~ /^[TDBRWVGSC]$/ { print "D", f, $3 }'
	done
}

# The objects of a folder: libtool's (.libs) or plain, the folder's own,
# not its subfolders', and only those whose source still exists (a build
# folder keeps the objects of files since moved or removed).
objects() { # DIR
	local d=$top_builddir/$1 o name
	for o in "$d"/.libs/*.o "$d"/*.o; do
		[ -f "$o" ] || continue
		name=${o##*/}
		name=${name%.o}
		[ -f "$top_srcdir/$1/${name##*-}.c" ] && echo "$o"
	done
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# ---- the core's layers --------------------------------------------------
# The table: " *  N name   files" lines, continued by lines of files only,
# between "Layers" and the first empty comment line after it.
awk '
	/^ \* Layers/ { on = 1; next }
	on && /^ \*$/ { if (seen) exit; next }
	on && match($0, /^ \*  +[1-9] [a-z]+ /) {
		layer = $2; seen = 1
		for (i = 4; i <= NF; i++) print $i, layer
		next
	}
	on && seen && /^ \*   / { for (i = 2; i <= NF; i++) print $i, layer }
' "$top_srcdir/ctld/core/core.h" >"$tmp/layers"
[ -s "$tmp/layers" ]
ok $? "the layer table of ctld/core/core.h is read ($(wc -l <"$tmp/layers") files)"

# shellcheck disable=SC2046
symbols core $(objects ctld/core) >"$tmp/core.syms"
# "from to symbol", one line per use of another file's symbol
awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[++k] = $2 " " $3 }
     END { for (i = 1; i <= k; i++) { split(use[i], a, " ")
	   if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]], a[2] } }' \
	"$tmp/core.syms" | sed 's|core/||g' | sort -u >"$tmp/edges"
awk '{ print $1, $2 }' "$tmp/edges" | sort -u >"$tmp/pairs"

# files of the core missing from the table
awk '$1 == "D" { sub("core/", "", $2); print $2 }' "$tmp/core.syms" |
	sort -u >"$tmp/files"
missing=$(awk 'NR == FNR { l[$1] = 1; next } !($1 in l)' "$tmp/layers" \
	"$tmp/files")
[ -z "$missing" ]
ok $? "every object of ctld/core has a layer${missing:+ (not in the table: $(echo $missing))}"

awk 'NR == FNR { l[$1] = $2; next }
     (l[$1] < l[$2]) { printf "#   ctld/core/%s.c (layer %d) uses %s of ctld/core/%s.c (layer %d)\n",
			$1, l[$1], $3, $2, l[$2] }' \
	"$tmp/layers" "$tmp/edges" >"$tmp/up"
cat "$tmp/up"
[ ! -s "$tmp/up" ]
ok $? "no file of ctld/core calls a higher layer ($(wc -l <"$tmp/up") upward uses)"

awk '{ p[$1 " " $2] = 1 } END { for (k in p) { split(k, a, " ")
	if (a[1] < a[2] && ((a[2] " " a[1]) in p)) print a[1] " <-> " a[2] } }' \
	"$tmp/pairs" | sort >"$tmp/mutual"
sed 's/^/#   mutual: /' "$tmp/mutual"
[ ! -s "$tmp/mutual" ]
ok $? "no two files of ctld/core use each other ($(wc -l <"$tmp/mutual") pairs)"
echo "# ctld/core: $(wc -l <"$tmp/pairs") file-to-file references," \
	"$(wc -l <"$tmp/mutual") mutual pairs, $(wc -l <"$tmp/up") upward"

# ---- the folders, DESIGN.md's arrows ------------------------------------
# folder: the folders it may use besides itself; "folder:prefix", only
# its symbols of that prefix.  A plugin's one exported symbol, its
# descriptor rota_plugin_<kind>_<name> (DESIGN.md, "Plugins"), is the
# plugin API: the plugin host links the default policies in by it.
allowed() {
	case $1 in
	common) echo "" ;;
	plugins) echo "common" ;;
	core) echo "common plugins:rota_plugin_" ;;
	ctld) echo "core common" ;;
	noded) echo "common" ;;
	sim) echo "core common" ;;
	ui) echo "common" ;;
	esac
}
{
	cat "$tmp/core.syms"
	# shellcheck disable=SC2046
	symbols common $(objects common)
	# shellcheck disable=SC2046
	symbols ctld $(objects ctld)
	# shellcheck disable=SC2046
	symbols noded $(objects noded)
	# shellcheck disable=SC2046
	symbols sim $(objects sim)
	# shellcheck disable=SC2046
	symbols ui $(objects ui)
	for d in "$top_builddir"/plugins/*/; do
		# shellcheck disable=SC2046
		symbols plugins $(objects "plugins/$(basename "$d")")
	done
} >"$tmp/all.syms"
for f in common plugins core ctld noded sim ui; do echo "$f $(allowed $f)"; done \
	>"$tmp/allowed"
awk 'NR == FNR { a[$1] = " " $0 " "; next }
     $1 == "D" { split($2, p, "/"); def[$3] = def[$3] " " p[1] " " }
     $1 == "U" { use[++k] = $2 " " $3 }
     END { for (i = 1; i <= k; i++) { split(use[i], u, " "); split(u[1], p, "/")
	   if (!(u[2] in def) || u[2] == "main") continue
	   if (index(def[u[2]], " " p[1] " ")) continue
	   split(def[u[2]], d, " "); okay = 0
	   for (j in d) {
		   if (index(a[p[1]], " " d[j] " ")) okay = 1
		   n = split(a[p[1]], al, " ")
		   for (m = 2; m <= n; m++)
			   if (split(al[m], fp, ":") == 2 && fp[1] == d[j] &&
			       index(u[2], fp[2]) == 1) okay = 1
	   }
	   if (!okay) printf "#   %s.c (%s) uses %s of %s\n", u[1], p[1], u[2], def[u[2]] } }' \
	"$tmp/allowed" "$tmp/all.syms" | sort -u >"$tmp/folders"
cat "$tmp/folders"
[ ! -s "$tmp/folders" ]
ok $? "every folder uses only what DESIGN.md's arrows allow ($(wc -l <"$tmp/folders") uses)"

# ---- the same arrows in the #include lines (STYLE.md) --------------------
# folder of an included project header: ctld/core, api (the plugin API,
# plugins/rota_plugin.h), plugins, or its first path element
includes() { # FOLDER DEPTH
	find "$top_srcdir/$1" -maxdepth "$2" -name '*.[ch]' | while read -r f; do
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do
			case $h in
			config.h) continue ;;
			ctld/core/*) t=core ;;
			plugins/rota_plugin.h) t=api ;;
			*/*) t=${h%%/*} ;;
			*) t=. ;;
			esac
			echo "$1 $t ${f#"$top_srcdir"/} $h"
		done
	done
}
{
	includes common 1
	includes ctld/core 1
	includes ctld 1
	includes noded 1
	includes sim 1
	includes ui 1
	includes plugins 3
} | awk '
	{ from = $1 == "ctld/core" ? "core" : $1; to = $2 }
	to == "." { print "#   " $3 " includes \"" $4 "\": a path from the top, please"; next }
	from == to { next }
	from == "plugins" && (to == "api" || to == "common") { next }
	from == "core" && (to == "api" || to == "common") { next }
	from == "ctld" && (to == "core" || to == "api" || to == "common") { next }
	from == "sim" && (to == "core" || to == "api" || to == "common") { next }
	(from == "noded" || from == "ui") && to == "common" { next }
	{ print "#   " $3 " includes " $4 }' >"$tmp/includes"
cat "$tmp/includes"
[ ! -s "$tmp/includes" ]
ok $? "every #include follows the same arrows ($(wc -l <"$tmp/includes") wrong-way)"

echo "1..$n"
[ "$failed" = 0 ]
