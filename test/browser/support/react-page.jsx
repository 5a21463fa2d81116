// A React 19 checkout page with <invoice-payment>: React sets `headers` as a property and listens to the element's
// `statechange` event through `onstatechange`, as a Next.js storefront (Medusa's starter) would.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import '../../../src/storefront/index.ts';

function Checkout({ src }) {
  const [state, setState] = useState('none');
  return (
    <main>
      <h1>Checkout (React 19)</h1>
      <invoice-payment
        src={src}
        headers={{ 'x-test-header': 'react' }}
        onstatechange={(event) => setState(event.detail.state)}
      />
      <p id="react-state">{state}</p>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<Checkout src={document.body.dataset.src} />);
