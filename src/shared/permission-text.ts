/** The words for a permission record as the Hook Manager's timeline shows them (webviews import from src/shared only). */
export { describePermission } from '../core/audit/permission-text';
