#!/usr/bin/env bash
# The HTML report in a real browser: a three-site campaign store
# (tests/tools/report_fixture) is reported with `vantage report --format
# html`, headless Chromium renders it to a screenshot and dumps the DOM it
# built, and the DOM must hold every chart with one series per site (and
# path): what a person opening the file would see. Chromium is required:
# without it the test fails and says how to install it.
#   REPORT_SCREENSHOT=FILE keeps the screenshot; docs/report-screenshot.png is
#   made with REPORT_WINDOW=1400,3660 REPORT_SCALE=0.63 (the page at 1400 CSS
#   pixels, shrunk to 882 pixels wide).
set -euo pipefail
: "${VANTAGE:?set VANTAGE to the vantage binary}"
: "${VANTAGE_TOOLS:?set VANTAGE_TOOLS to the tests directory of the build, with report_fixture}"

fail() { echo "FAIL: $*" >&2; exit 1; }

browser=$(command -v chromium || true)
[ -n "$browser" ] || fail "chromium is not installed: apt-get install -y chromium (setup.sh installs it)"
[ -x "$VANTAGE_TOOLS/report_fixture" ] || fail "no $VANTAGE_TOOLS/report_fixture: build the tests first"

work=$(mktemp -d "${TMPDIR:-/tmp}/vantage-it-html-XXXXXX")
trap 'rm -rf "$work"' EXIT

"$VANTAGE_TOOLS/report_fixture" "$work/campaign"
"$VANTAGE" report "$work/campaign" --format html --output "$work/report.html"
size=$(stat -c %s "$work/report.html")
[ "$size" -gt 20000 ] || fail "report.html is only $size bytes"
echo "report.html: $size bytes"

# Offline and alone: no network, no extensions, a throw-away profile.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$work/profile")
url="file://$work/report.html"

timeout 180 "$browser" "${flags[@]}" --screenshot="$work/shot.png" \
  --window-size="${REPORT_WINDOW:-1400,3000}" --force-device-scale-factor="${REPORT_SCALE:-1}" \
  "$url" >"$work/shot.log" 2>&1 ||
  { cat "$work/shot.log" >&2; fail "chromium could not take a screenshot of $url"; }
[ -s "$work/shot.png" ] || fail "chromium wrote no screenshot"
timeout 180 "$browser" "${flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/dom.log" ||
  { cat "$work/dom.log" >&2; fail "chromium could not load $url"; }

/usr/bin/python3 - "$work/dom.html" "$work/shot.png" <<'EOF'
import struct, sys
from html.parser import HTMLParser

dom, png = sys.argv[1], sys.argv[2]
sites = ["aws-apse1", "home-fiber", "mobile-lte"]
paths = ["ais-regular", "ais-nbi", "s3-direct"]
objops = ["put", "get", "head", "delete"]

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts = {}      # class -> count
        self.series = []      # (chart, tag, class, data-site, data-path/op, size)
        self.chart = None
        self.banned = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "link", "object", "embed"):
            self.banned.append(tag)
        if tag == "svg":
            self.chart = a.get("class", "")
            self.charts[self.chart] = self.charts.get(self.chart, 0) + 1
            return
        if self.chart and "data-site" in a:
            size = len(a.get("points", "").split()) or a.get("d", "").count("M")
            self.series.append((self.chart, tag, a.get("class", ""), a["data-site"],
                                a.get("data-path") or a.get("data-op") or "", size))
    def handle_endtag(self, tag):
        if tag == "svg":
            self.chart = None

p = Page()
p.feed(open(dom, encoding="utf-8").read())
errors = []
def want(cond, what):
    if not cond:
        errors.append(what)

want(not p.banned, "elements that fetch or run something: %s" % p.banned)
want(p.charts.get("chart latency-vs-scale") == 1, "one latency-vs-scale chart: %s" % p.charts)
want(p.charts.get("chart cdf", 0) == len(paths) + len(objops) + 2,
     "a CDF per listing path, per object op and per probe: %s" % p.charts)
want(p.charts.get("chart phases", 0) == len(objops) + 2, "phase charts: %s" % p.charts)
want(p.charts.get("chart timeseries") == 1, "one time series: %s" % p.charts)

def count(chart, cls, site, key=None):
    return sum(1 for s in p.series if s[0] == chart and s[2] == cls and s[3] == site
               and (key is None or s[4] == key))

for site in sites:
    for path in paths:
        n = [s for s in p.series if s[0] == "chart latency-vs-scale" and s[2] == "p50"
             and s[3] == site and s[4] == path]
        want(len(n) == 1 and n[0][1] == "polyline" and n[0][5] == 8,
             "latency-vs-scale: one p50 polyline of 8 scale points for %s %s: %s" % (site, path, n))
        want(count("chart latency-vs-scale", "band", site, path) == 1, "band %s %s" % (site, path))
        want(count("chart cdf", "cdf-curve", site, path) == 1, "CDF curve %s %s" % (site, path))
    for op in objops:
        want(count("chart cdf", "cdf-curve", site, op) == 1, "CDF curve %s %s" % (site, op))
        want(count("chart phases", "bar", site, op) == 1, "phase bar %s %s" % (site, op))
    pts = [s for s in p.series if s[0] == "chart timeseries" and s[2] == "points" and s[3] == site]
    want(len(pts) == 1 and pts[0][5] > 500, "time series points of %s: %s" % (site, pts))
    want(count("chart timeseries", "errors", site) == 1, "time series errors of %s" % site)

# The screenshot is the window's size and not a blank page.
head = open(png, "rb").read(32)
want(head[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is a PNG")
w, h = struct.unpack(">II", head[16:24])
want(w >= 800 and h >= 1000, "screenshot size %dx%d" % (w, h))
import os
want(os.path.getsize(png) > 60000, "the screenshot has content (%d bytes)" % os.path.getsize(png))

if errors:
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    sys.exit(1)
print("DOM: %d charts, %d series; screenshot %dx%d" % (sum(p.charts.values()), len(p.series), w, h))
EOF

if [ -n "${REPORT_SCREENSHOT:-}" ]; then
  cp "$work/shot.png" "$REPORT_SCREENSHOT"
  echo "screenshot kept in $REPORT_SCREENSHOT"
fi
echo "1 passed, 0 failed"
