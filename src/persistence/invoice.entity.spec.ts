import { maskDocument, recognisedOrder } from './invoice.entity';

describe('the order as people know it', () => {
  it('masks a CPF and a CNPJ, keeping the middle so two customers can be told apart', () => {
    expect(maskDocument('52998224725')).toBe('***.982.247-**');
    expect(maskDocument('11222333000181')).toBe('**.222.333/0001-**');
    expect(maskDocument('12ABC34501DE35')).toBe('**.ABC.345/01DE-**');
    expect(maskDocument('123')).toBe('***');
    expect(maskDocument('')).toBeNull();
    expect(maskDocument(undefined)).toBeNull();
  });

  it('keeps the order number, the name and the e-mail, clipped to their columns, and never the full document', () => {
    const shown = recognisedOrder({ display_id: 1001 } as never, {
      name: `  ${'a'.repeat(200)} `,
      email: 'maria@example.com',
      document: '52998224725',
    });
    expect(shown).toEqual({
      displayId: '1001',
      customerName: 'a'.repeat(160),
      customerEmail: 'maria@example.com',
      customerDocument: '***.982.247-**',
    });
    expect(JSON.stringify(shown)).not.toContain('52998224725');
    expect(recognisedOrder({} as never, {})).toEqual({
      displayId: null,
      customerName: null,
      customerEmail: null,
      customerDocument: null,
    });
  });
});
