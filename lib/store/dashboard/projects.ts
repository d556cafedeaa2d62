import type { Project } from '../accounts.js';
import type { Queryable } from '../db.js';

export async function listProjects(db: Queryable, organizationId: string): Promise<Project[]> {
  const result = await db.query<Project>(
    'SELECT * FROM projects WHERE organization_id = $1 AND archived_at IS NULL ORDER BY created_at, id',
    [organizationId],
  );
  return result.rows;
}

export async function findProject(db: Queryable, organizationId: string, projectId: string): Promise<Project | null> {
  const result = await db.query<Project>('SELECT * FROM projects WHERE organization_id = $1 AND id = $2 AND archived_at IS NULL', [organizationId, projectId]);
  return result.rows[0] ?? null;
}

export async function updateProject(
  db: Queryable,
  organizationId: string,
  projectId: string,
  fields: { name?: string; defaults?: Record<string, unknown> },
): Promise<Project | null> {
  const result = await db.query<Project>(
    `UPDATE projects SET name = COALESCE($3, name), defaults = COALESCE($4::jsonb, defaults)
      WHERE organization_id = $1 AND id = $2 AND archived_at IS NULL RETURNING *`,
    [organizationId, projectId, fields.name ?? null, fields.defaults === undefined ? null : JSON.stringify(fields.defaults)],
  );
  return result.rows[0] ?? null;
}
