/** The paywatch explorer: a read-only single-page app over the public API, served by the public listener. */
import { render } from 'preact';
import { Link, Route, Router, Switch } from 'wouter-preact';
import './style.css';
import { Overview } from './pages/overview';
import { Transactions } from './pages/transactions';
import { Transaction } from './pages/transaction';
import { Wallet } from './pages/wallet';
import { Providers, Provider, Service } from './pages/providers';
import { Check } from './pages/check';

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        This explorer has no such page. Start from the <Link href="/">overview</Link>.
      </p>
    </section>
  );
}

function App() {
  return (
    <Router>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <nav aria-label="Main">
          <Link href="/" class="brand">
            paywatch
          </Link>
          <Link href="/">Overview</Link>
          <Link href="/transactions">Transactions</Link>
          <Link href="/providers">Providers</Link>
          <Link href="/check">Trust check</Link>
          <a href="/api/openapi.json">API</a>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <Switch>
          <Route path="/" component={Overview} />
          <Route path="/transactions" component={Transactions} />
          <Route path="/tx/:hash">{(p: { hash: string }) => <Transaction hash={p.hash} />}</Route>
          <Route path="/wallet/:address">{(p: { address: string }) => <Wallet address={p.address} />}</Route>
          <Route path="/providers" component={Providers} />
          <Route path="/providers/:domain">{(p: { domain: string }) => <Provider domain={p.domain} />}</Route>
          <Route path="/service/:id">{(p: { id: string }) => <Service id={p.id} />}</Route>
          <Route path="/check" component={Check} />
          <Route component={NotFound} />
        </Switch>
      </main>
      <footer>
        <p>
          Read-only. Records are observations, not a complete feed. Advertised prices are not charges. No uptime guarantee.{' '}
          <a href="/.well-known/paywatch.json">Manifest</a>
        </p>
      </footer>
    </Router>
  );
}

render(<App />, document.getElementById('app')!);
