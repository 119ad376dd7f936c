#!/usr/bin/python3
"""tests/report_browser.py REPORT.html COMPARE.json SCREENSHOT.png: opens a
run/report page in headless Chromium (Debian's chromium and chromedriver,
driven by Selenium) and checks what a reader relies on: it loads with no
console error and no network request, the verdict table has a row per app
and configuration holding run/compare's numbers (its --format json output),
every chart is present and non-empty, and it keeps a screenshot.
Prints "ok - ..." / "not ok - ..." lines; exit 1 when any check failed."""
import json
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

LOCAL = ("file:", "data:", "about:", "chrome:", "blob:")
failed = 0


def check(name, ok, detail=""):
    global failed
    print("%s - report in Chromium: %s%s" % ("ok" if ok else "not ok", name,
                                             "" if ok or not detail else ": " + detail))
    failed += not ok


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,900", "--no-first-run", "--disable-extensions",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--metrics-recording-only", "--no-default-browser-check"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=opts)


def main():
    report, compare_json, shot = sys.argv[1:4]
    expected = json.load(open(compare_json))
    d = browser()
    try:
        d.get("file://" + os.path.abspath(report))
        check("the page has a title and the verdict section",
              bool(d.title) and bool(d.find_elements(By.ID, "verdict")), d.title)
        errors = [e["message"] for e in d.get_log("browser") if e.get("level") == "SEVERE"]
        check("no console error", not errors, "; ".join(errors)[:300])
        requests = []
        for entry in d.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                url = msg["params"]["request"]["url"]
                if not url.startswith(LOCAL):
                    requests.append(url)
        check("no network request", not requests, ", ".join(requests)[:300])

        rows = {}
        for tr in d.find_elements(By.CSS_SELECTOR, "table.verdict tbody tr"):
            cells = [c.text.strip() for c in tr.find_elements(By.CSS_SELECTOR, "th, td")]
            rows[(cells[0].replace(" (control)", ""), cells[1])] = cells
        want, bad = 0, []
        for app, e in expected["apps"].items():
            for label, s in e["labels"].items():
                want += 1
                cells = rows.get((app, label))
                if cells is None:
                    bad.append("no row for %s on %s" % (app, label))
                elif "missing" in s:
                    if "MISSING" not in cells[2]:
                        bad.append("%s on %s not shown as missing" % (app, label))
                elif cells[3] != "%.4g" % s["median"] or cells[5] != str(s["n"]) or (
                        s["percent_of_2x"] is not None and cells[6] != "%.1f%%" % s["percent_of_2x"]):
                    bad.append("%s on %s: %s vs compare's %.4g, n %d, %s%%" % (
                        app, label, cells[3:7], s["median"], s["n"], s["percent_of_2x"]))
        check("the verdict table has a row per app and configuration (%d) with run/compare's "
              "numbers" % want, want > 0 and not bad and len(rows) == want, "; ".join(bad)[:400])

        charts = d.find_elements(By.CSS_SELECTOR, "svg.chart")
        names = [c.get_attribute("data-chart") for c in charts]
        wanted = ["verdict", "phases"] + (["pingpong"] if any(
            "pingpong" == app for app in expected["apps"]) else [])
        empty = []
        for c, name in zip(charts, names):
            size = c.size
            marks = len(c.find_elements(By.CSS_SELECTOR, "path, rect, use"))
            if size["width"] < 100 or size["height"] < 100 or marks < 10:
                empty.append("%s (%dx%d, %d marks)" % (name, size["width"], size["height"], marks))
        check("every chart is present (%s) and non-empty" % ", ".join(wanted),
              all(w in names for w in wanted) and not empty,
              "charts %s; empty %s" % (names, empty))

        height = d.execute_script("return document.documentElement.scrollHeight")
        d.set_window_size(1280, min(max(900, height), 16000))
        d.save_screenshot(shot)
        check("a screenshot kept (%s)" % shot,
              os.path.exists(shot) and os.path.getsize(shot) > 10000)
    finally:
        d.quit()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
