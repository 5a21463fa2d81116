import { Order, RequestContext, RequestContextService, TransactionalConnection } from '@vendure/core';

const DEFAULT_CHANNEL_CODE = '__default_channel__';

/**
 * An admin context in the order's own channel (its seller channel when it has one), for work the plugin does
 * outside a request (the module's reports and events). `null` for an order id that is not one.
 */
export async function orderContext(
  connection: TransactionalConnection,
  contexts: RequestContextService,
  orderId: string,
): Promise<RequestContext | null> {
  if (!/^[\w-]{1,64}$/.test(orderId)) return null;
  const order = await connection.rawConnection
    .getRepository(Order)
    .findOne({ where: { id: orderId }, relations: { channels: true } });
  if (!order) return null;
  const channel = order.channels.find((c) => c.code !== DEFAULT_CHANNEL_CODE) ?? order.channels[0];
  // By token: the service loads the channel whole (its tax zones among it).
  return contexts.create({ apiType: 'admin', channelOrToken: channel.token });
}
