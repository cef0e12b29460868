/** The channel the delivery worker listens on; a notification only means "look for due rows". */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';
