import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { QueryFailedError, Repository } from 'typeorm';
import { FLAT_SHIPPING_CENTS, findProduct } from './catalog';
import type { AddressDto, CreateOrderDto } from './order.dto';
import { DemoOrder, OrderAddress, OrderItem } from './order.entity';

/** First order number of a new store. */
const FIRST_DISPLAY_ID = 1001;
/** Tries of a write that lost a race (optimistic lock, order number taken). */
const MAX_TRIES = 8;

/**
 * The store's orders: placing them (priced from the catalog) and changing them safely. Every change goes through
 * {@link mutate}, an optimistic-lock loop, because the payment module's order port writes orders from webhook
 * deliveries while the admin may be writing the same order.
 */
@Injectable()
export class OrdersService {
  constructor(@InjectRepository(DemoOrder) private readonly orders: Repository<DemoOrder>) {}

  /** Places an order; throws 400 naming the field when the order cannot be shipped or priced. */
  async create(dto: CreateOrderDto): Promise<DemoOrder> {
    const items: OrderItem[] = dto.items.map((line, index) => {
      const product = findProduct(line.product_id);
      if (!product) throw new BadRequestException(`items.${index}.product_id is not in the catalog`);
      return {
        id: `item_${randomUUID().replace(/-/g, '')}`,
        product_id: product.id,
        title: product.title,
        thumbnail: product.thumbnail,
        quantity: line.quantity,
        unit_price: product.price,
        requires_shipping: product.requires_shipping,
      };
    });
    const physical = items.some((i) => i.requires_shipping);
    if (physical && !dto.shipping_address) {
      throw new BadRequestException('shipping_address is required: the order has physical items');
    }
    const subtotal = items.reduce((sum, i) => sum + i.unit_price * i.quantity, 0);
    const shippingTotal = physical ? FLAT_SHIPPING_CENTS : 0;
    const now = new Date().toISOString();
    const order = this.orders.create({
      id: `order_${randomUUID().replace(/-/g, '')}`,
      status: 'pending',
      paymentStatus: 'not_paid',
      fulfillmentStatus: 'not_fulfilled',
      currencyCode: 'BRL',
      items,
      customer: {
        first_name: dto.customer.first_name,
        last_name: dto.customer.last_name,
        email: dto.customer.email ?? null,
        phone: dto.customer.phone ?? null,
        document: dto.customer.document ?? null,
      },
      shippingAddress: dto.shipping_address ? address(dto.shipping_address) : null,
      billingAddress: dto.billing_address ? address(dto.billing_address) : null,
      subtotal,
      shippingTotal,
      discountTotal: 0,
      total: subtotal + shippingTotal,
      refundedTotal: 0,
      paymentMethod: null,
      invoiceRecordId: null,
      paymentEvents: [],
      trackingCode: null,
      carrier: null,
      trackingUrl: null,
      shippedAt: null,
      canceledAt: null,
      createdAt: now,
      updatedAt: now,
    });
    // Order numbers are "highest + 1"; two orders placed at once may pick the same one and the unique index
    // refuses the second, which then takes the next number.
    for (let attempt = 1; ; attempt++) {
      const { max } = (await this.orders
        .createQueryBuilder('o')
        .select('MAX(o.displayId)', 'max')
        .getRawOne<{ max: number | string | null }>()) ?? { max: null };
      order.displayId = max === null ? FIRST_DISPLAY_ID : Number(max) + 1;
      try {
        await this.orders.insert(order);
        return this.get(order.id);
      } catch (err) {
        if (!(err instanceof QueryFailedError) || attempt >= MAX_TRIES) throw err;
      }
    }
  }

  /** The order, or 404. */
  async get(id: string): Promise<DemoOrder> {
    const order = await this.orders.findOneBy({ id });
    if (!order) throw new NotFoundException(`order ${id} not found`);
    return order;
  }

  /** Newest first. */
  list(limit = 50): Promise<DemoOrder[]> {
    return this.orders.find({ order: { displayId: 'DESC' }, take: limit });
  }

  /**
   * Reads the order, lets `change` edit it, and writes it back only if nobody wrote it meanwhile; otherwise reads it
   * again and re-applies `change`. `change` returns `false` to leave the order as it is.
   */
  async mutate(id: string, change: (order: DemoOrder) => boolean | void): Promise<DemoOrder> {
    for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
      const order = await this.get(id);
      const version = order.version;
      if (change(order) === false) return order;
      order.updatedAt = new Date().toISOString();
      const { id: _id, version: _version, displayId: _displayId, createdAt: _createdAt, ...fields } = order;
      const result = await this.orders
        .createQueryBuilder()
        .update(DemoOrder)
        .set(fields)
        .where('id = :id AND version = :version', { id, version })
        .execute();
      if (result.affected === 1) return this.get(id);
    }
    throw new ConflictException(`order ${id} is being changed by someone else; try again`);
  }
}

function address(dto: AddressDto): OrderAddress {
  return {
    address_1: dto.address_1,
    number: dto.number,
    address_2: dto.address_2 ?? null,
    district: dto.district,
    city: dto.city,
    province: dto.province.toUpperCase(),
    postal_code: dto.postal_code,
    country_code: dto.country_code.toLowerCase(),
  };
}
