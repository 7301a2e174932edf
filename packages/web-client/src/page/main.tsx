// The page's entry: reads the server's page config, starts the session controller and renders the app.
import { render } from 'preact';
import { type PageConfig, SessionController } from './state/session-controller.js';
import { App } from './view/app.js';
import './app.css';

async function boot(): Promise<void> {
  const root = document.getElementById('app') as HTMLElement;
  const response = await fetch('/config.json', { cache: 'no-store' });
  if (!response.ok) {
    root.textContent = (await response.text()).trim();
    return;
  }
  const config = (await response.json()) as PageConfig;
  document.title = `${config.title} · ACP Kit`;
  const controller = new SessionController(config);
  root.textContent = '';
  render(<App controller={controller} />, root);
  await controller.start();
}

void boot();
