"""A foreign W3C client for the tapshot Appium plugin: Debian's python3-selenium.

Run by tests/plugin/plugin.test.ts as
    python3 python_client.py <server url> <capabilities JSON> <cart page URL>
It opens its own session, learns a tap, replays it, taps an element that is not there, and
prints one JSON object with what each step answered, for the test to check.
"""
import json
import sys

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.options import ArgOptions

PROMPT = 'the "Checkout" link'


def main():
    server, caps_json, cart_url = sys.argv[1:4]
    options = ArgOptions()
    for name, value in json.loads(caps_json).items():
        options.set_capability(name, value)
    driver = webdriver.Remote(command_executor=server, options=options)
    report = {}
    try:
        driver.get(cart_url)
        report["learn"] = driver.execute_script("tapshot: tap", {"prompt": PROMPT})
        report["after_learn"] = driver.execute_script("return document.body.dataset.screen")
        driver.get(cart_url)
        report["replay"] = driver.execute_script("tapshot: tap", {"prompt": PROMPT})
        report["after_replay"] = driver.execute_script("return document.body.dataset.screen")
        driver.get(cart_url)
        try:
            driver.execute_script("tapshot: tap", {"prompt": 'the "Gift wrapping" button', "timeout": 20000})
            report["missing"] = {"raised": False}
        except WebDriverException as error:
            stack = error.stacktrace or []
            report["missing"] = {
                "raised": True,
                "type": type(error).__name__,
                "message": error.msg,
                "stacktrace_first": stack[0] if stack else None,
            }
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
