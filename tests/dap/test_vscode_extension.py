"""editors/vscode: the extension registers the `tracepilot` debug type and starts `tracepilot dap` for it.

VS Code itself cannot run here; node loads the extension with a stand-in `vscode` module that records what
the extension registers, and the manifest's configuration attributes are checked against what the adapter
reads (dap/launch_args.py), so a configuration written from the manifest's schema is one the adapter takes.
"""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tracepilot.dap import adapter, launch_args

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"

PROBE = r"""
const Module = require('module');
const registered = [];
const vscode = {
  workspace: { getConfiguration: () => ({ get: () => process.env.PROBE_COMMAND || undefined }) },
  debug: { registerDebugAdapterDescriptorFactory: (type, factory) => { registered.push([type, factory]); return {}; } },
  DebugAdapterExecutable: class { constructor(command, args) { this.command = command; this.args = args; } },
};
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? vscode : load.call(this, request, ...rest); };
const ext = require(process.argv[1]);
const context = { subscriptions: [] };
ext.activate(context);
const [[type, factory]] = registered;
const configs = JSON.parse(process.argv[2]);
const out = configs.map((configuration) => factory.createDebugAdapterDescriptor({ configuration }));
console.log(JSON.stringify({ type, subscriptions: context.subscriptions.length, descriptors: out }));
"""


def _probe(configs: list[dict], command: str = "") -> dict:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the VS Code extension check needs Node.js (apt-get install nodejs)")
    env = {"PATH": "/usr/bin:/bin", "PROBE_COMMAND": command}
    result = subprocess.run(["node", "-e", PROBE, str(EXTENSION / "extension.js"), json.dumps(configs)],
                            capture_output=True, text=True, timeout=30, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_extension_starts_tracepilot_dap_and_joins_on_request() -> None:
    answer = _probe([
        {"request": "launch", "mainClass": "com.acme.Main"},
        {"request": "attach", "port": 5005},
        {"request": "attach", "join": True, "followOnly": True},
        {"request": "attach", "join": "4242-abc"},
    ])
    assert answer["type"] == "tracepilot" and answer["subscriptions"] == 1
    assert [(d["command"], d["args"]) for d in answer["descriptors"]] == [
        ("tracepilot", ["dap"]), ("tracepilot", ["dap"]), ("tracepilot", ["dap", "--join", "--follow-only"]),
        ("tracepilot", ["dap", "--join", "4242-abc"]),
    ]
    assert _probe([{"request": "launch"}], command="/opt/tp/bin/tracepilot")["descriptors"][0]["command"] == \
        "/opt/tp/bin/tracepilot"


def test_the_manifest_offers_only_arguments_the_adapter_reads() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    [debugger] = manifest["contributes"]["debuggers"]
    assert debugger["type"] == "tracepilot"
    source = inspect.getsource(launch_args) + inspect.getsource(adapter)
    extension = (EXTENSION / "extension.js").read_text(encoding="utf-8")
    for request, schema in debugger["configurationAttributes"].items():
        for name in schema["properties"]:
            assert f'"{name}"' in source or f"configuration.{name}" in extension, \
                f"{request} attribute {name} is read by neither the adapter nor the extension"
    launch_keys = [name for name in debugger["configurationAttributes"]["launch"]["properties"]]
    kwargs = launch_args.launch_kwargs({name: None for name in launch_keys} | {"mainClass": "com.acme.Main"})
    assert kwargs["main"] == "com.acme.Main"
