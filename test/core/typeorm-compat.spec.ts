import { dataSourceOf, escapeQuery, queryReturning } from '../../src/persistence/typeorm-compat';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

/**
 * The TypeORM seam (`src/persistence/typeorm-compat.ts`) on a real database: what it answers must not depend on the driver
 * or on the TypeORM line installed (the repository develops on 0.3; the consumer test runs the package on 1.x).
 */
describeEachDatabase('TypeORM compatibility seam', (kind) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await openTestDatabase(kind);
    await db.dataSource.query(
      'CREATE TABLE compat_probe (id integer PRIMARY KEY, name varchar(20) NOT NULL)',
    );
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('finds the DataSource of an entity manager and of a query runner', async () => {
    expect(dataSourceOf(db.dataSource.manager)).toBe(db.dataSource);
    const runner = db.dataSource.createQueryRunner();
    try {
      expect(dataSourceOf(runner)).toBe(db.dataSource);
      expect(dataSourceOf(runner.manager)).toBe(db.dataSource);
    } finally {
      await runner.release();
    }
  });

  it('escapes named parameters into the driver placeholders, a repeated name included', async () => {
    const [sql, values] = escapeQuery(db.dataSource, 'SELECT :a AS a, :b AS b, :a AS c', { a: 'x', b: 'y' });
    expect(sql).not.toContain(':a');
    const [row] = (await db.dataSource.query(sql, values)) as Array<Record<string, unknown>>;
    expect(row).toEqual({ a: 'x', b: 'y', c: 'x' });
  });

  it('gives the rows of INSERT, UPDATE and DELETE ... RETURNING in one shape, none when nothing matched', async () => {
    const em = db.dataSource.manager;
    const p = kind === 'postgres' ? ['$1', '$2'] : ['?', '?'];
    const returning = (sql: string, params: unknown[]) => queryReturning(em, sql, params);
    expect(
      await returning(`INSERT INTO compat_probe (id, name) VALUES (${p[0]}, ${p[1]}) RETURNING id, name`, [
        1,
        'a',
      ]),
    ).toEqual([{ id: 1, name: 'a' }]);
    await returning(`INSERT INTO compat_probe (id, name) VALUES (${p[0]}, ${p[1]}) RETURNING id`, [2, 'b']);
    const updated = await returning(
      `UPDATE compat_probe SET name = ${p[0]} WHERE id >= ${p[1]} RETURNING id`,
      ['z', 1],
    );
    expect(updated.map((r) => r.id).sort()).toEqual([1, 2]);
    expect(
      await returning(`UPDATE compat_probe SET name = ${p[0]} WHERE id = ${p[1]} RETURNING id`, ['q', 9]),
    ).toEqual([]);
    expect(await returning(`DELETE FROM compat_probe WHERE id = ${p[0]} RETURNING name`, [2])).toEqual([
      { name: 'z' },
    ]);
  });
});
