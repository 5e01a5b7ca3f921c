#!/bin/sh
# The product's parsers against public corpora, with references run side by side:
#   - toml-test (TOML 1.0 file list): valid files in scope must parse to the expected values, every
#     invalid file must be refused;
#   - real podcast feeds against Python feedparser: enclosure URLs, titles, pubDates, latest episode;
#   - timing at the 8 MiB feed limit (a real-looking feed and the old nesting hang) next to feedparser.
# Corpora are not committed (third-party files); see "missing" below for where to get them.
# usage: Benchmarks/parsers/run.sh      env: WORK (corpus dir), CONFIG (debug|release, default release)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-$here/work}
config=${CONFIG:-release}
missing=0
if [ ! -f "$work/toml-test/tests/files-toml-1.0.0" ]; then
    echo "missing: toml-test. Get it with: git clone --depth 1 https://github.com/toml-lang/toml-test $work/toml-test"
    missing=1
fi
if ! ls "$work"/feeds/* >/dev/null 2>&1; then
    echo "missing: real podcast feeds in $work/feeds/ (any RSS/Atom files). docs/benchmarks.md's figures used"
    echo "  every 8th snapshot of each feed in github.com/critrolesync/critrolesync.github.io feed-archive/"
    echo "  and the feeds/ of github.com/NiloCK/pcm; optional edge-case fixtures in $work/feeds-fixtures/"
    echo "  (github.com/gpodder/podcastparser tests/data/*.rss) and $work/feedparser-tests/ (feedparser's"
    echo "  tests/wellformed and tests/illformed: github.com/kurtmckee/feedparser)."
    missing=1
fi
[ "$missing" = 0 ] || exit 2

if [ ! -x "$here/.venv/bin/python" ]; then
    python3 -m venv "$here/.venv"
    "$here/.venv/bin/pip" install -q 'feedparser==6.0.*'
fi
py="$here/.venv/bin/python"

cd "$root"
swift build -c "$config" --product parse-dump >/dev/null
dump="$(swift build -c "$config" --show-bin-path)/parse-dump"

echo "== TOML"
"$py" "$here/compare_toml.py" "$dump" "$work/toml-test" 2>"$work/toml-failures.txt"
echo "== Podcast feeds vs feedparser $("$py" -c 'import feedparser; print(feedparser.__version__)') (mismatches: $work/feed-mismatches.txt)"
"$py" "$here/compare_feeds.py" "$dump" "$work"/feeds/* 2>"$work/feed-mismatches.txt"
if ls "$work"/feeds-fixtures/* >/dev/null 2>&1; then
    echo "== Edge-case fixtures vs feedparser (mismatches: $work/fixture-mismatches.txt)"
    "$py" "$here/compare_feeds.py" "$dump" "$work"/feeds-fixtures/* 2>"$work/fixture-mismatches.txt"
fi
if [ -d "$work/feedparser-tests" ]; then
    echo "== feedparser's own test files with enclosures vs feedparser (mismatches: $work/feedparser-test-mismatches.txt)"
    # shellcheck disable=SC2046
    "$py" "$here/compare_feeds.py" "$dump" $(grep -rl enclosure "$work/feedparser-tests" | sort) 2>"$work/feedparser-test-mismatches.txt"
fi
echo "== Time at the 8 MiB feed limit ($config build; one parse-dump process per run, best of 3)"
mkdir -p "$work/big"
"$py" "$here/make_big_feeds.py" "$work/big" >/dev/null
"$py" "$here/time_feeds.py" "$dump" "$work/big/limit-8mib.xml" "$work/big/nested-8mib.xml"
