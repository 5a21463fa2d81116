import { parse } from 'graphql';

/** `gql` without a dependency of its own: GraphQL documents parsed where they are written. */
export const gql = (source: TemplateStringsArray) => parse(source.join(''));

/** A document from a string (one built with `${...}`). */
export const gqlWith = (source: string) => parse(source);

// The Admin API operations the e2e suite uses.

export const ADD_FULFILLMENT = gqlWith(`
  mutation ($input: FulfillOrderInput!) {
    addFulfillmentToOrder(input: $input) {
      ... on Fulfillment { id state }
      ... on ErrorResult { errorCode message }
    }
  }
`);

export const TRANSITION_FULFILLMENT = gqlWith(`
  mutation ($id: ID!, $state: String!) {
    transitionFulfillmentToState(id: $id, state: $state) {
      ... on Fulfillment { id state }
      ... on ErrorResult { errorCode message }
    }
  }
`);

export const CANCEL_ORDER = gqlWith(`
  mutation ($input: CancelOrderInput!) {
    cancelOrder(input: $input) {
      ... on Order { id state }
      ... on ErrorResult { errorCode message }
    }
  }
`);

export const REFUND_ORDER = gqlWith(`
  mutation ($input: RefundOrderInput!) {
    refundOrder(input: $input) {
      ... on Refund { id state total transactionId }
      ... on ErrorResult { errorCode message }
    }
  }
`);

export const SETTLE_PAYMENT = gqlWith(`
  mutation ($id: ID!) {
    settlePayment(id: $id) {
      ... on Payment { id state }
      ... on ErrorResult { errorCode message }
    }
  }
`);

export const CREATE_PROMOTION = gqlWith(`
  mutation ($input: CreatePromotionInput!) {
    createPromotion(input: $input) {
      ... on Promotion { id }
      ... on ErrorResult { errorCode message }
    }
  }
`);

export const APPLY_COUPON = gqlWith(`
  mutation ($code: String!) {
    applyCouponCode(couponCode: $code) {
      ... on Order { id totalWithTax }
      ... on ErrorResult { errorCode message }
    }
  }
`);

export const PAYMENT_METHODS = gqlWith(`
  query { paymentMethods { items { id code handler { code } } } }
`);

export const UPDATE_PAYMENT_METHOD = gqlWith(`
  mutation ($input: UpdatePaymentMethodInput!) {
    updatePaymentMethod(input: $input) { id }
  }
`);
