// Mails the per-recipient cap kept from going (mail/recipient-cap.ts), by kind, read at each scrape.
import { Counter } from 'prom-client'
import type { RecipientCap } from '../mail/recipient-cap.ts'
import type { Metrics } from './metrics.ts'

export function addMailMetrics(metrics: Metrics, cap: Pick<RecipientCap, 'skipped'>) {
  metrics.addCollector(
    new Counter({
      name: 'blog_mail_skipped_total',
      help: 'Mails not sent because their recipient had had ACCOUNT_MAIL_LIMIT_PER_RECIPIENT mails within the hour, by kind.',
      labelNames: ['kind'],
      registers: [],
      collect() {
        this.reset()
        for (const [kind, count] of cap.skipped()) this.inc({ kind }, count)
      },
    }),
  )
}
