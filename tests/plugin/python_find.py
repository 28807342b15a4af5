"""The -tapshot locator strategy from Debian's python3-selenium, a client tapshot did not write.

Run by tests/plugin/find.test.ts as
    python3 python_find.py <server url> <capabilities JSON> <promo page URL>
It finds the "Promo code" field by description and types into it with selenium's own send_keys,
finds it again (the stored locator, no model call; find_elements answers the one), finds and clicks the Apply button, reads the
result with selenium's own find, and finds an element that is not there. Prints one JSON object.
"""
import json
import sys

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions

FIELD = 'the "Promo code" field'
BUTTON = 'the "Apply" button'
MISSING = 'the "Gift wrapping" button'


def main():
    server, caps_json, page_url = sys.argv[1:4]
    options = ArgOptions()
    for name, value in json.loads(caps_json).items():
        options.set_capability(name, value)
    driver = webdriver.Remote(command_executor=server, options=options)
    report = {}
    try:
        driver.get(page_url)
        field = driver.find_element("-tapshot", FIELD)
        field.send_keys("SAVE10")
        report["typed"] = field.get_attribute("value")
        report["tag"] = field.tag_name
        driver.get(page_url)
        report["elements"] = len(driver.find_elements("-tapshot", FIELD))
        again = driver.find_element("-tapshot", FIELD)
        again.send_keys("TAKE5")
        driver.find_element("-tapshot", BUTTON).click()
        report["result"] = driver.find_element(By.CSS_SELECTOR, "[data-testid=promo-result]").text
        try:
            driver.find_element("-tapshot", MISSING)
            report["missing"] = {"raised": False}
        except NoSuchElementException as error:
            report["missing"] = {"raised": True, "type": type(error).__name__, "message": error.msg}
        report["missing_elements"] = len(driver.find_elements("-tapshot", MISSING))
    finally:
        driver.quit()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
