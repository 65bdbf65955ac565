// The node's parsing and the contract cannot drift apart: every field the node's Simplify and the trigger read
// from an answer is a field of the contract's schema for that answer.
import { z } from 'zod';
import { orderOwnFields } from '../../nodes/Ollang/actions/order/values';
import { SIMPLIFIED_ORDER_FIELDS } from '../../nodes/Ollang/actions/order/get.operation';
import { LINE_FIELDS } from '../../nodes/Ollang/actions/consumption/getMany.operation';
import { consumptionLineSchema, deliveryEventSchema, evaluationSchema, orderDocSchema, orderSchema, orderSummarySchema } from '../../contract/schemas.cts';

const fieldsOf = (schema: z.AnyZodObject) => Object.keys(schema.shape);
const missingFrom = (schema: z.AnyZodObject, fields: readonly string[]) => fields.filter((field) => !fieldsOf(schema).includes(field));

describe("the node's field lists against the contract", () => {
	it("Order > Get's Simplify reads only fields of the contract's order", () => {
		expect(missingFrom(orderSchema, SIMPLIFIED_ORDER_FIELDS.order)).toEqual([]);
		expect(missingFrom(orderDocSchema, SIMPLIFIED_ORDER_FIELDS.orderDocs)).toEqual([]);
		expect(missingFrom(deliveryEventSchema, SIMPLIFIED_ORDER_FIELDS.deliveryEvents)).toEqual([]);
		expect(missingFrom(evaluationSchema, SIMPLIFIED_ORDER_FIELDS.latestEvaluation)).toEqual([]);
		const score = (evaluationSchema.shape.scores as z.ZodOptional<z.ZodArray<z.AnyZodObject>>).unwrap().element;
		expect(missingFrom(score, SIMPLIFIED_ORDER_FIELDS.scores)).toEqual([]);
	});

	it("an order's own fields (Simplify, the trigger's items) are in both the order and the list row", () => {
		expect(missingFrom(orderSchema, orderOwnFields)).toEqual([]);
		expect(missingFrom(orderSummarySchema, orderOwnFields)).toEqual([]);
	});

	it("Consumption > Get Many's Simplify reads only fields of the contract's consumption line", () => {
		expect(missingFrom(consumptionLineSchema, LINE_FIELDS)).toEqual([]);
		expect(fieldsOf(consumptionLineSchema.shape.createdBy as z.AnyZodObject)).toContain('name');
	});

	it('the check fails when a field list names a field the contract lacks (the comparison is not vacuous)', () => {
		expect(missingFrom(orderSchema, [...SIMPLIFIED_ORDER_FIELDS.order, 'totalPrice'])).toEqual(['totalPrice']);
	});
});
