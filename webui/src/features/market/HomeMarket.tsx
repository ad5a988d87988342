// The market on the home page: its code loads when the Market button is first pressed.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';

type Browser = ComponentType<{ projectId?: string }>;

export function HomeMarket() {
  const [Loaded, setLoaded] = useState<{ Browser: Browser } | null>(null);
  useEffect(() => {
    void import('./MarketBrowser').then((m) => setLoaded({ Browser: m.MarketBrowser }));
  }, []);
  return <div class="home-market">{Loaded ? <Loaded.Browser /> : <div class="panel-message">Loading the market…</div>}</div>;
}
