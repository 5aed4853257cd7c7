import { describe, expect, it } from 'vitest';
import { detectTool, looksLikeTask } from './detect';
import { readYamlDocuments } from './yaml-read';

const docs = (text: string) => readYamlDocuments(text, 'task.yaml');

describe('which tool wrote a YAML file', () => {
  it.each([
    ['run: echo hi', 'skypilot'],
    ['setup: pip install x', 'skypilot'],
    ['resources:\n  accelerators: A100', 'skypilot'],
    ['num_nodes: 2', 'skypilot'],
    ['envs: {A: 1}', 'skypilot'],
    ['workdir: .', 'skypilot'],
    ['type: task\ncommands: [echo hi]', 'dstack'],
    ['type: service\nrun: x', 'dstack'],
    ['name: pipeline\n---\nrun: echo 1\n---\nrun: echo 2', 'skypilot'],
  ])('%j → %s', (text, tool) => {
    expect(detectTool(docs(text), 'task.yaml').tool).toBe(tool);
  });

  it.each([
    ['', /task\.yaml: the file is empty: expected a SkyPilot task/],
    [
      '- a\n- b',
      /task\.yaml: not a mapping: expected a SkyPilot task .* or a dstack configuration \(type: task\)/,
    ],
    ['name: x\nimage: y', /neither a SkyPilot task nor a dstack configuration/],
  ])('%j is refused', (text, message) => {
    expect(() => detectTool(docs(text), 'task.yaml')).toThrow(message);
  });

  it('invalid YAML names line and column', () => {
    expect(() => docs('run: echo\n  bad: [')).toThrow(/^task\.yaml:\d+:\d+: invalid YAML: /);
    let thrown: unknown;
    try {
      docs('a: 1\nb: [1, 2\nc: 3\n');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code: 'bad_input', file: 'task.yaml', line: 3 });
  });

  it.each([
    [{ type: 'task' }, true],
    [{ run: 'x' }, true],
    [{ job: { run: 'x' } }, false],
    ['text', false],
  ])('looksLikeTask(%j) = %s', (doc, expected) => {
    expect(looksLikeTask(doc)).toBe(expected);
  });
});
