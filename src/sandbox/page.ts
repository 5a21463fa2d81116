import type { WireInvoiceCurrent } from './wire.types';

const esc = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

/**
 * The invoice's payment page (`links.url`): what a customer would see, plus buttons that call the `pay`
 * control, so a demo can be clicked through without curl.
 */
export function paymentPage(inv: WireInvoiceCurrent, total: string): string {
  const pix = inv.pix.payload
    ? `<h2>PIX</h2><img src="${esc(inv.pix.image ?? '')}" alt="PIX QR code" width="220">` +
      `<p><textarea readonly rows="4" cols="60">${esc(inv.pix.payload)}</textarea></p>` +
      `<button onclick="pay('pix')">Simulate PIX payment</button>`
    : '';
  const slip = inv.billet
    ? `<h2>Boleto</h2><p><code>${esc(inv.billet.line)}</code></p><img src="${esc(inv.billet.image)}" alt="barcode">` +
      `<p><button onclick="pay('billet')">Simulate bank slip payment</button></p>`
    : '';
  const card = inv.card.last4
    ? `<h2>Card</h2><p>${esc(inv.card.brand ?? '')} •••• ${esc(inv.card.last4)}</p>` +
      `<button onclick="pay('card')">Approve</button> <button onclick="pay('card', false)">Deny</button>`
    : '';
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>Fatura ${esc(inv.id)}</title>
<style>body{font-family:sans-serif;max-width:40rem;margin:2rem auto}code{word-break:break-all}</style></head>
<body><h1>Fatura ${esc(inv.id)}</h1><p>Total: <strong>${esc(total)}</strong> · vencimento ${esc(inv.due_at.day.slice(0, 10))}</p>
<p>Status: <strong id="status">${inv.status.code} (${esc(inv.status.title)})</strong></p>${pix}${slip}${card}
<script>
async function pay(method, approved) {
  const res = await fetch('./pay', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ method, approved: approved !== false }) });
  const body = await res.json();
  document.getElementById('status').textContent = res.ok ? body.invoice.status.code + ' (' + body.invoice.status.title + ')' : body.message;
}
</script></body></html>`;
}
