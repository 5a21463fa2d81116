/**
 * The bank slip's barcode drawn as the banks print it: Interleaved 2 of 5 (FEBRABAN), 44 digits, narrow to wide 1:3.
 * About 30 lines instead of a barcode library; a phone's banking app can read it off the screen.
 */
const PATTERNS = ['00110', '10001', '01001', '11000', '00101', '10100', '01100', '00011', '10010', '01010'];
const SVG = 'http://www.w3.org/2000/svg';
const NARROW = 1;
const WIDE = 3;
const HEIGHT = 50;

/** The SVG for an even number of digits; null for anything else. */
export function itfBarcode(digits: string, label: string): SVGSVGElement | null {
  if (!/^(\d\d)+$/.test(digits)) return null;
  // Start: narrow bar, narrow space, narrow bar, narrow space. Each pair: the first digit in bars, the second in
  // the spaces between them. Stop: wide bar, narrow space, narrow bar.
  const widths: number[] = [NARROW, NARROW, NARROW, NARROW];
  for (let i = 0; i < digits.length; i += 2) {
    const bars = PATTERNS[Number(digits[i])];
    const spaces = PATTERNS[Number(digits[i + 1])];
    for (let k = 0; k < 5; k++)
      widths.push(bars[k] === '1' ? WIDE : NARROW, spaces[k] === '1' ? WIDE : NARROW);
  }
  widths.push(WIDE, NARROW, NARROW);
  const svg = document.createElementNS(SVG, 'svg');
  let x = 0;
  widths.forEach((w, i) => {
    if (i % 2 === 0) {
      const bar = document.createElementNS(SVG, 'rect');
      bar.setAttribute('x', String(x));
      bar.setAttribute('width', String(w));
      bar.setAttribute('height', String(HEIGHT));
      svg.appendChild(bar);
    }
    x += w;
  });
  svg.setAttribute('viewBox', `0 0 ${x} ${HEIGHT}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('part', 'barcode');
  return svg;
}
