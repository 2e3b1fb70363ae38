// Registers the "tracepilot" debug type: VS Code starts `tracepilot dap` (stdio) for each debug session,
// or `tracepilot dap --join [SESSION]` for an attach configuration with "join".
'use strict';

const vscode = require('vscode');

// The command line of the adapter for one debug configuration (exported for the test).
function adapterCommand(configuration, command) {
  const args = ['dap'];
  if (configuration.request === 'attach' && configuration.join) {
    args.push('--join');
    if (typeof configuration.join === 'string') args.push(configuration.join);
    if (configuration.followOnly) args.push('--follow-only');
  }
  // The front end's own flags: they hold on top of a joined session's host (issue 25).
  if (configuration.readOnly) args.push('--read-only');
  if (configuration.redact) args.push('--redact');
  return { command: command || 'tracepilot', args };
}

function activate(context) {
  const factory = {
    createDebugAdapterDescriptor(session) {
      const command = vscode.workspace.getConfiguration('tracepilot').get('command');
      const { command: exe, args } = adapterCommand(session.configuration, command);
      return new vscode.DebugAdapterExecutable(exe, args);
    },
  };
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('tracepilot', factory));
}

function deactivate() {}

module.exports = { activate, deactivate, adapterCommand };
