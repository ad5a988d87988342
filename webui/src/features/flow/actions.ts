// What a flow step's `next` button does: a model tool's form filled from `next.args`, or the
// workbench panel where that step is done.
import { errorMessage } from '../../api/client';
import { runChecks } from '../../api/checks';
import type { FlowNext } from '../../api/flow';
import type { ToolName } from '../../api/tools';
import { notify } from '../../ui/toast';
import { openPerf, openRunPanel } from '../debug/open';
import { preferredModel } from '../debug/projectModels';
import { deploy, pickDevice, pickedDevice } from '../debug/run';
import { deviceById, devices } from '../../kernel/devices';
import { initialValues } from '../modeltools/fields';
import { openTool, TOOL_TITLES } from '../modeltools/open';
import { opener } from '../../kernel/openers';
import { pid } from '../../kernel/session';

const isTool = (tool: unknown): tool is ToolName => typeof tool === 'string' && tool in TOOL_TITLES;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function openToolFor(next: FlowNext): void {
  const args = next.args;
  if (next.tool === 'evaluate') {
    const models = Array.isArray(args.models) ? args.models.map(String) : [];
    opener('evaluate')({ dataset: text(args.dataset), models });
  } else if (isTool(next.tool)) {
    openTool({ tool: next.tool, model: text(args.model), values: initialValues(next.tool, args) });
  }
}

async function checkNow(reload: () => void): Promise<void> {
  try {
    const report = await runChecks(pid());
    notify(report.passed ? 'Every budget holds.' : 'A budget fails: see the flow.', report.passed ? 'info' : 'error');
  } catch (err) {
    notify(`The checks could not run: ${errorMessage(err)}`);
  }
  reload();
}

/** Deploys to the device the flow names (the Run panel shows it); with none, the Devices panel. */
function deployTo(deviceId: string): void {
  if (!deviceId) return opener('devices')();
  pickDevice(deviceId);
  openRunPanel();
  void deploy();
}

/** The Perf panel on the device the flow names, its benchmark on the flow's model. */
function measureOn(deviceId: string, model: string): void {
  if (!deviceId) return opener('devices')();
  pickDevice(deviceId);
  if (model) preferredModel.value = model;
  openPerf();
}

const DEVICE_ACTIONS = ['deploy', 'measure'];

/** A deploy or measure step's device: the flow's (the one used last), else the device picked in
 * this tab, else the only device online; the label names it. Without one, unchanged (the
 * button opens the Devices panel). */
export function withDevice(next: FlowNext): FlowNext {
  if (!DEVICE_ACTIONS.includes(next.action) || next.args.device_id) return next;
  const online = devices.value.filter((d) => d.online);
  const device = deviceById(pickedDevice.value) ?? (online.length === 1 ? online[0] : undefined);
  if (!device) return next;
  const label = next.action === 'deploy' ? `Deploy to ${device.name}` : `Benchmark on ${device.name}`;
  return { ...next, label, args: { ...next.args, device_id: device.id } };
}

/** Runs the action; `budgets` is shown in the panel itself (the template to add). */
export function runNext(next: FlowNext, reload: () => void): void {
  if (next.action === 'tool') openToolFor(next);
  else if (next.action === 'datasets') opener('datasets')();
  else if (next.action === 'train') opener('training')();
  else if (next.action === 'checks') void checkNow(reload);
  else if (next.action === 'deploy') deployTo(text(next.args.device_id));
  else if (next.action === 'measure') measureOn(text(next.args.device_id), text(next.args.model));
}

const tomlValue = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : String(value);

/** The `[[budget]]` tables of `mnnwb.toml` for a budgets template (docs/checks.md). */
export function budgetsToml(args: Record<string, unknown>): string {
  const budgets = Array.isArray(args.budgets) ? (args.budgets as Record<string, unknown>[]) : [];
  return budgets
    .map((budget) => ['[[budget]]', ...Object.entries(budget).map(([key, value]) => `${key} = ${tomlValue(value)}`)].join('\n'))
    .join('\n\n');
}
