// Heavy panels (terminals, charts, model views) load their code the first time they are shown,
// so they do not weigh on the project page's start-up (budget: editor usable within 1 s).
import { useEffect, useState } from 'preact/hooks';
import type { PanelFactory, PanelProps } from './panels';

/**
 * A panel factory that imports its real factory on first use, e.g.
 * `registerPanel('training', lazyPanel(() => import('./TrainingPanel').then((m) => m.trainingPanel)))`.
 */
export function lazyPanel(load: () => Promise<PanelFactory>): PanelFactory {
  let pending: Promise<PanelFactory> | null = null;
  let loaded: PanelFactory | null = null;

  function LazyPanel(props: PanelProps) {
    const [factory, setFactory] = useState<PanelFactory | null>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (factory) return;
      pending ??= load().then((f) => (loaded = f));
      pending.then((f) => setFactory(() => f), (err) => setError(String(err)));
    }, []);
    if (error) return <div class="panel-message">This panel failed to load: {error}</div>;
    return factory ? <>{factory(props)}</> : <div class="panel-message">Loading…</div>;
  }

  return (props) => <LazyPanel {...props} />;
}
