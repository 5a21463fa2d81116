import { parse } from 'graphql';

/** The Shop API extension: one mutation that starts (or resumes) the active order's invoice payment. */
export const shopApiSchema = parse(`
  enum InvoicePaymentMethod {
    pix
    billet
    card
  }

  input InvoicePaymentCardInput {
    "Token of the card from the service's tokenization script (never a card number)."
    token: String!
    "Card expiry, MM/YY."
    expiry: String!
    holderName: String!
  }

  input StartInvoicePaymentInput {
    method: InvoicePaymentMethod!
    "The customer's CPF or CNPJ; required when the customer record has none."
    document: String
    "Required for card."
    card: InvoicePaymentCardInput
    "Card only."
    installments: Int
  }

  type InvoicePaymentPix {
    "PIX copy-and-paste code."
    payload: String
    "QR code image URL."
    image: String
  }

  type InvoicePaymentBillet {
    "Digitable line."
    line: String
    barcode: String
    "Bank slip link."
    url: String
  }

  type InvoicePaymentCard {
    brand: String
    last4: String
  }

  type InvoicePaymentSession {
    invoiceRecordId: ID!
    method: InvoicePaymentMethod!
    "The service's invoice number."
    invoiceId: String
    statusCode: Int
    statusText: String
    "pending, requires_more, authorized, captured, canceled or error."
    sessionStatus: String!
    amount: Money!
    dueDate: String
    installments: Int!
    pix: InvoicePaymentPix
    billet: InvoicePaymentBillet
    card: InvoicePaymentCard
    paymentUrl: String
    "The order's state when the mutation answered (PaymentSettled once paid)."
    orderState: String!
    orderCode: String!
  }

  extend type Mutation {
    "Starts the active order's invoice payment (moving the order to ArrangingPayment), or resumes the open one."
    startInvoicePayment(input: StartInvoicePaymentInput!): InvoicePaymentSession!
  }
`);
