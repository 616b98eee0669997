"""Headless Chromium for the HTML report's tests: the driver fixture, a wait, and the requests the
page made (Chromium's performance log)."""

from __future__ import annotations

import json

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
# Chromium headless, offline and quiet (no first-run pages, updates or sync), at one window size.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium driven by Selenium, with its console and network logs (Debian's chromium
    and chromium-driver: .ci/run installs them)."""
    import os

    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI"):
            pytest.fail("chromium and chromium-driver are not installed (.ci/run installs them)")
        pytest.skip("chromium and chromium-driver are not installed")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def wait_for(driver, script: str, timeout: float = 120):
    """The first truthy value the page's ``script`` returns, polled until ``timeout`` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for: {script}")


def requests_made(driver) -> set[str]:
    """Every URL the page asked for since the log was last read (Chromium's performance log)."""
    found = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            found.add(message["params"]["request"]["url"])
    return found
