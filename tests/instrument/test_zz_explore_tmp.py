import pytest
from .test_differential_shapes import _compare

CASES = {
  "ctor-captures": [("dsh-super", {"capture": 2}), ("dsh-base", {"capture": 2}), ("dsh-field", {"capture": 2, "expressions": ["this.count", "base"]}),
                    ("dsh-init", {"log": "{this.base} {count} {label}"})],
  "ctor-conds": [("dsh-super", {"condition": "label.length() == 2", "log": "l={label} s={start}"}), ("dsh-base", {"condition": "this.base == 0", "capture": 1}),
                 ("dsh-field", {"condition": "this.base > 10 && count == 0"}), ("dsh-init", {"condition": "count == 3"})],
  "sync-loop": [("dsh-sync", {"capture": 2, "expressions": ["got", "i"]}), ("dsh-continue", {"capture": 3, "expressions": ["k", "acc", "values"]}),
                ("dsh-acc", {"log": "{k} {acc} {count}", "hit_count": "%3"}), ("dsh-big", {"capture": 2, "expressions": ["scale", "i"]}),
                ("dsh-end", {"capture": 2}), ("dsh-try", {"capture": 2}), ("dsh-catch", {"capture": 2})],
  "lambdas": [("dsh-mix", {"capture": 2, "expressions": ["a", "b"]}), ("dsh-anon", {"capture": 2, "expressions": ["this"]}), ("dsh-lambda", {"condition": "background % 3 == 0", "log": "bg {background}"}),
              ("dsh-tick", {"capture": 2})],
}

@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("running", [False, True])
async def test_explore(jvm_factory, line_of, java_source_root, case, running):
    modes = await _compare(jvm_factory, line_of, java_source_root, running, CASES[case])
    print(case, running, modes)
