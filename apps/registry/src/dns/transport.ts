/** The transport a message came in on: it sets the size limit of the answer. */
export type Transport = 'udp' | 'tcp';
