"""Reads spindle's JUnit report with junitparser, a real JUnit consumer, and checks it says what
the JSON report of the same run says: a suite per host (and per server not collected) and one for
the run; per host a case per rule, failed when the rule has findings that count, skipped when it
could not be evaluated, an error when it failed; the run's case an error iff the run is incomplete.

Usage: python3 junit_matches_json.py REPORT.xml REPORT.json; prints the counts it checked.
"""

import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped


def kind(case):
    kinds = {type(r) for r in case.result}
    for k, name in ((Error, "error"), (Failure, "failure"), (Skipped, "skipped")):
        if k in kinds:
            return name
    return "passed"


def claims(error, code):
    c = error["code"]
    return c == code or (c.endswith("/*") and code.startswith(c[:-1]))


def main(xml_path, json_path):
    xml = JUnitXml.fromfile(xml_path)
    report = json.load(open(json_path, encoding="utf-8"))
    rules = [r["code"] for r in report["rules"]]
    suites = list(xml)
    hosts = report["hosts"]
    assert len(suites) == len(hosts) + 1, (len(suites), len(hosts))
    totals = {"passed": 0, "failure": 0, "skipped": 0, "error": 0}
    for suite, host in zip(suites, hosts):
        if host["host"].isprintable():
            assert suite.name == host["host"], (suite.name, host["host"])
        else:
            # Shown escaped: control and formatting characters as visible escapes.
            assert suite.name.isprintable() and suite.name != host["host"], (suite.name, host["host"])
        cases = list(suite)
        if host["collection_error"] is not None:
            assert [kind(c) for c in cases] == ["error"], suite.name
            totals["error"] += 1
            continue
        extra = [e for e in host["errors"] if not any(claims(e, r) for r in rules)]
        expected = len(rules) + (1 if host["not_judged"] else 0) + len(extra)
        assert len(cases) == expected == suite.tests, (suite.name, len(cases), expected, suite.tests)
        by_code = {c.name.split(" ")[0]: c for c in cases}
        for code in rules:
            case = by_code[code]
            counting = [f for f in host["findings"] if f["code"] == code and not f["waived"]]
            if any(claims(e, code) for e in host["errors"]):
                want = "error"
            elif counting:
                want = "failure"
                failure = case.result[0]
                assert failure.message.startswith(f"{len(counting)} finding"), (code, failure.message)
                worst = max(counting, key=lambda f: ["note", "warning", "error"].index(f["severity"]))
                assert failure.type == worst["severity"], (code, failure.type)
            elif any(n["code"] == code for n in host["not_evaluated"]):
                want = "skipped"
            else:
                want = "passed"
            assert kind(case) == want, (suite.name, code, kind(case), want)
        if host["not_judged"]:
            assert kind(by_code["host"]) == "error", suite.name
        kinds = [kind(c) for c in cases]
        for k in totals:
            totals[k] += kinds.count(k)
        assert suite.failures == kinds.count("failure"), suite.name
        assert suite.errors == kinds.count("error"), suite.name
        assert suite.skipped == kinds.count("skipped"), suite.name
    run = suites[-1]
    assert run.name == "spindle", run.name
    (case,) = list(run)
    assert kind(case) == ("error" if report["summary"]["incomplete"] else "passed"), kind(case)
    print(json.dumps({"suites": len(suites), **totals}, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
