// The LLM benchmark's table: prefill and decode tokens/s per prompt length, median and spread.
interface Spread {
  median: number;
  min: number;
  max: number;
}

interface Case {
  prompt_tokens: number;
  gen_tokens: number;
  prefill_tps: Spread;
  decode_tps: Spread;
  ttft_ms: Spread;
}

const cell = (s: Spread, unit = '') => `${s.median.toLocaleString()}${unit} (${s.min.toLocaleString()}–${s.max.toLocaleString()})`;

export function BenchTable({ result }: { result: Record<string, unknown> }) {
  const cases = (result.cases ?? []) as Case[];
  return (
    <table class="tool-table" data-testid="llm-bench-table">
      <thead>
        <tr><th>Prompt tokens</th><th>Prefill tok/s</th><th>Decode tok/s</th><th>First token</th></tr>
      </thead>
      <tbody>
        {cases.map((c) => (
          <tr key={c.prompt_tokens}>
            <td>{c.prompt_tokens}</td><td>{cell(c.prefill_tps)}</td><td>{cell(c.decode_tps)}</td><td>{cell(c.ttft_ms, ' ms')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
