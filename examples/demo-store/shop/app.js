// The demo store's storefront page: place an order, then pay it with <invoice-payment>. A store's own storefront does
// the same few calls (see docs/storefront.md): create the order, start the payment through the store, hand the
// component the status URL the store answered.
const gateway = document.body.dataset.gateway;
const $ = (id) => document.getElementById(id);
const brl = (cents) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(decimal(cents));
const decimal = (cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok)
    throw new Error(
      Array.isArray(answer.message) ? answer.message.join('; ') : answer.message || res.statusText,
    );
  return answer;
}

async function showProducts() {
  const products = await api('GET', '/store/products');
  $('products').replaceChildren(
    ...products.map((p, i) => {
      const label = document.createElement('label');
      const input = Object.assign(document.createElement('input'), { type: 'number', min: 0, max: 99 });
      input.name = `qty:${p.id}`;
      input.value = i === 0 ? '1' : '0';
      label.append(`${p.title} · ${brl(p.price)} `, input);
      return label;
    }),
  );
}

function orderBody(form) {
  const data = new FormData(form);
  const items = [...data.entries()]
    .filter(([name, value]) => name.startsWith('qty:') && Number(value) > 0)
    .map(([name, value]) => ({ product_id: name.slice(4), quantity: Number(value) }));
  const text = (name) => String(data.get(name) || '').trim();
  return {
    items,
    customer: {
      first_name: text('first_name'),
      last_name: text('last_name'),
      email: text('email') || undefined,
      document: text('document'),
    },
    shipping_address: {
      address_1: text('address_1'),
      number: text('number'),
      district: text('district'),
      city: text('city'),
      province: text('province'),
      postal_code: text('postal_code'),
      country_code: 'br',
    },
  };
}

/** The component for the order: PIX and slip start at once; the card waits for the form and its token. */
async function mountPayment(order, method) {
  const el = document.createElement('invoice-payment');
  if (method === 'card') {
    el.setAttribute('method', 'card');
    el.setAttribute('amount', decimal(order.total));
    el.setAttribute('max-installments', '12');
    el.setAttribute('tokenizer-src', `${gateway}/js/card.js`);
    el.pay = async (card) => {
      const { payment } = await api('POST', `/store/orders/${order.id}/payment`, {
        method: 'card',
        card: { token: card.token, expiry: card.expiry, holder_name: card.holderName },
        installments: card.installments,
      });
      return { src: payment.status_url };
    };
    $('test-cards').hidden = false;
  } else {
    const { payment } = await api('POST', `/store/orders/${order.id}/payment`, { method });
    el.setAttribute('src', payment.status_url);
  }
  el.addEventListener('statechange', (event) => {
    const number = event.detail.view.invoiceNumber;
    $('bank-app').hidden = !number || method === 'card' || event.detail.state !== 'waiting';
    if (number) $('bank-app-link').href = `${gateway}/_sandbox/invoices/${encodeURIComponent(number)}/page`;
    $('sandbox-help').hidden = $('bank-app').hidden && $('test-cards').hidden;
  });
  $('slot').replaceChildren(el);
}

$('order').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const button = form.querySelector('button[type=submit]');
  button.disabled = true;
  $('order-error').textContent = '';
  try {
    const order = await api('POST', '/store/orders', orderBody(form));
    const method = new FormData(form).get('method');
    await mountPayment(order, method);
    $('order-number').textContent = `#${order.display_id}`;
    $('payment').dataset.orderId = order.id;
    form.hidden = true;
    $('payment').hidden = false;
    $('payment-title').focus();
  } catch (err) {
    $('order-error').textContent = `Não foi possível fazer o pedido: ${err.message}`;
  } finally {
    button.disabled = false;
  }
});

showProducts().catch((err) => ($('order-error').textContent = err.message));
