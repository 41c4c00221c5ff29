import type { ReactNode } from 'react';
import type { CardCtx } from './ActButton.tsx';
import { ArtifactBody } from './ArtifactBody.tsx';
import { ChangeBody } from './ChangeBody.tsx';
import { DecisionBody } from './DecisionBody.tsx';
import { DiagramBody } from './DiagramBody.tsx';
import { QuestionBody } from './QuestionBody.tsx';
import { CommentBody, ResponseBody, UnclassifiedBody } from './TextBodies.tsx';
import { TableBody } from './TableBody.tsx';

/** The body of a card, rendered for what its kind is. */
export function KindBody({ ctx }: { ctx: CardCtx }): ReactNode {
  switch (ctx.surface.kind) {
    case 'response': return <ResponseBody ctx={ctx} />;
    case 'decision': return <DecisionBody ctx={ctx} />;
    case 'question': return <QuestionBody ctx={ctx} />;
    case 'change': return <ChangeBody ctx={ctx} />;
    case 'artifact': return <ArtifactBody ctx={ctx} />;
    case 'table': return <TableBody ctx={ctx} />;
    case 'diagram': return <DiagramBody ctx={ctx} />;
    case 'comment': return <CommentBody ctx={ctx} />;
    default: return <UnclassifiedBody ctx={ctx} />;
  }
}
