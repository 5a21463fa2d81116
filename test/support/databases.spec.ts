import { describeEachDatabase, openTestDatabase, TestDatabase } from './databases';

describeEachDatabase('test database harness', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(kind);
  });
  afterAll(async () => db.destroy());

  it('opens a private, writable database of the requested kind', async () => {
    expect(db.dataSource.options.type).toBe(kind === 'sqlite' ? 'better-sqlite3' : 'postgres');
    await db.dataSource.query('CREATE TABLE probe (n integer)');
    await db.dataSource.query('INSERT INTO probe (n) VALUES (41), (1)');
    const rows: Array<{ total: string | number }> = await db.dataSource.query(
      'SELECT SUM(n) AS total FROM probe',
    );
    expect(Number(rows[0].total)).toBe(42);
  });
});
