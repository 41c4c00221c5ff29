/**
 * A command that asks the service: connect (starting it when none runs), run, and say in
 * one line what went wrong, prefixed with the command's name. Used by each folder's cli.ts.
 */
import type { Req, RequestName, Res } from '../../preload/contract.ts';

export type Request = <K extends RequestName>(name: K, req: Req<K>) => Promise<Res<K>>;

export async function throughService(command: string, cwd: string, run: (request: Request) => Promise<number>): Promise<number> {
  const { connectService } = await import('../service/client.ts');
  let conn;
  try {
    conn = await connectService({ client: 'cli', cwd });
  } catch (e) {
    process.stderr.write(`terminal-delight ${command}: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    return await run((name, req) => conn.request(name, req));
  } catch (e) {
    process.stderr.write(`terminal-delight ${command}: ${(e as Error).message}\n`);
    return 1;
  } finally {
    conn.close();
  }
}
